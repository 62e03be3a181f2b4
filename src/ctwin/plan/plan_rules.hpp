#pragma once
// The rules that remove a split from a plan's space, in the order they are applied, and how many
// candidates each removed. Most are the scenario's own checks (workload::validate, the replay's
// step limits): a candidate is removed by the rule of the field its first failing check names,
// so the planner and `ctwin run` never disagree about what is valid. Two are the planner's own:
// tensor parallelism within the NVLink domain, and memory (the step's worst stage must fit the
// GPU less a margin, workload::memory_per_gpu as the run report computes it). Two more apply to MoE
// models only, after memory, the rules Megatron-Core's MoE guide and the published MoE recipes
// follow (plan_space.hpp).

#include <cstdint>
#include <string>
#include <vector>

#include "ctwin/compute/gpu_spec.hpp"
#include "ctwin/fabric/cluster_spec.hpp"
#include "ctwin/workload/model_spec.hpp"
#include "ctwin/workload/parallel_config.hpp"

namespace ctwin::api {

struct RuleCount {
  std::string rule;         ///< "nvlink", a scenario field ("parallel.tp", "training.global_batch"), "memory"
  std::string description;  ///< what the rule requires
  std::int64_t removed = 0;
  std::string example;      ///< the message of the first candidate it removed, in enumeration order
};

/// Counts per rule, kept in the rules' order; add() to a rule not yet listed appends it in its place.
class RuleCounts {
 public:
  RuleCounts();
  /// `removed` more candidates for `rule`; `example` is kept when it is the rule's first.
  void add(const std::string& rule, std::int64_t removed, const std::string& example);
  /// The sum of two shards' counts (examples from the earlier shard in enumeration order win: see plan.cpp).
  void merge(const RuleCounts& other);
  [[nodiscard]] std::int64_t total() const;
  /// The rule applied last among those that removed anything: the one that emptied the space
  /// when nothing survives. Empty when no rule removed anything.
  [[nodiscard]] const RuleCount* last_removing() const;
  [[nodiscard]] const std::vector<RuleCount>& rules() const { return rules_; }
  [[nodiscard]] std::vector<RuleCount>& rules() { return rules_; }

 private:
  std::vector<RuleCount> rules_;
};

/// The rule a check's InputError pointer ("/parallel/tp", "/training/global_batch") stands for:
/// "parallel.tp", "training.global_batch".
[[nodiscard]] std::string rule_of_pointer(const std::string& pointer);

/// GPUs that share one NVLink domain: the server's (a rack for NVL72 servers); 1 without NVLink.
[[nodiscard]] std::int64_t nvlink_domain(const fabric::ClusterSpec& cluster);

/// The scenario's checks on a split (workload::validate); the rule and message of the first
/// that fails, or an empty rule.
struct RuleVerdict {
  std::string rule;
  std::string message;
  [[nodiscard]] bool passed() const { return rule.empty(); }
};
[[nodiscard]] RuleVerdict check_split(const workload::ModelSpec& model, const workload::ParallelConfig& split,
                                      std::int64_t gpus);

/// The memory rule: the worst pipeline stage's total (as the run report computes it) against the
/// GPU's HBM less `margin` (a share of it, 0 to 0.5; 0: the run report's fits_memory).
[[nodiscard]] RuleVerdict check_memory(const workload::ModelSpec& model, const workload::ParallelConfig& split,
                                       std::int64_t gpus, const compute::GpuSpec& gpu, double margin = 0);

/// HBM the planner keeps free by default (`--memory-margin`), as a share of each GPU's: 10 %.
/// Why: the memory model counts tensors, not the allocator. PyTorch's caching allocator rounds
/// and splits blocks, so reserved memory runs above allocated memory (fragmentation; the reason
/// for PYTORCH_CUDA_ALLOC_CONF=expandable_segments), and NCCL's channel buffers, cuBLAS and
/// TransformerEngine workspaces and MoE routing imbalance come on top of the model's fixed 3 GiB
/// overhead; a split planned at 99 % of HBM leaves none of that room. docs/plan.md ("Memory
/// margin") has the reasoning; 0 gives the memory model alone.
inline constexpr double kDefaultMemoryMargin = 0.10;

/// "10%" or "0.1" (a share of HBM) into [0, 0.5]; InputError naming `field` otherwise.
[[nodiscard]] double parse_memory_margin(const std::string& text, const std::string& field);

}  // namespace ctwin::api
