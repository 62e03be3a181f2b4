#pragma once
// A training scenario (docs/input-formats.md, "Scenario"): model, cluster, GPU count, training settings,
// split, overlap switches and network model, read strictly. Lives in replay rather than workload
// because it needs the fabric layer's cluster reader.
//
// Paths inside the file are tried relative to the scenario file, then to the repository root.
// `model` and `cluster` may be inline objects. Referenced files are inlined into the document
// before `--set` overrides apply, so `--set cluster.fabric.oversubscription.leaf=2` works on a
// cluster given by path; errors about a referenced file still name that file.

#include <cstdint>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <utility>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ctwin/collectives/tuning.hpp"
#include "ctwin/compute/gpu_spec.hpp"
#include "ctwin/core/overrides.hpp"
#include "ctwin/fabric/cluster_spec.hpp"
#include "ctwin/network/network_model.hpp"
#include "ctwin/replay/checkpoint_spec.hpp"
#include "ctwin/replay/data_pipeline.hpp"
#include "ctwin/replay/moe_runtime.hpp"
#include "ctwin/replay/placement.hpp"
#include "ctwin/replay/pool_spec.hpp"
#include "ctwin/replay/stack_profile.hpp"
#include "ctwin/replay/tp_overlap.hpp"
#include "ctwin/workload/model_spec.hpp"
#include "ctwin/workload/parallel_config.hpp"

namespace ctwin::replay {

/// Which communication may run beside compute (Megatron-LM's --overlap-grad-reduce,
/// --overlap-param-gather, --tp-comm-overlap; p2p overlap is its default batched isend/irecv;
/// moe_shared_expert is --moe-shared-expert-overlap, off by default as in Megatron-Core: the
/// shared experts run while the EP all-to-all dispatch is in flight).
struct OverlapConfig {
  bool dp_grad_reduce = true;
  bool dp_param_gather = true;
  bool tp_comm = false;
  UbOverlapConfig tp_comm_config = UbOverlapConfig::te_defaults();  ///< how, when tp_comm is on
  bool pp_p2p = true;
  bool moe_shared_expert = false;
};

struct Scenario {
  std::string source;  ///< the scenario file, for messages
  workload::ModelSpec model;
  fabric::ClusterSpec cluster;
  compute::GpuSpec gpu;
  std::int64_t gpus = 0;
  workload::ParallelConfig split;  ///< validated against model and gpus
  OverlapConfig overlap;
  MoeRuntime moe_runtime;  ///< "moe_runtime": routing imbalance, capacity, permute path (MoE models only)
  /// "host": {"cuda_graphs": true}: kernels replayed from CUDA graphs, no host launch exposed
  /// (replay/host_issue.hpp).
  bool cuda_graphs = false;
  /// "stack": the software stack's MoE costs (replay/stack_profile.hpp); none: today's model, to the bit.
  /// It sets the defaults of host.cuda_graphs and moe_runtime (permute_fusion, imbalance); the
  /// scenario's own fields win.
  std::optional<StackProfile> stack;
  network::ModelKind network = network::ModelKind::kFlow;  ///< analytical or flow
  /// "data": the loader reading samples from the cluster's storage (data_pipeline.hpp); none:
  /// the step never waits for data, and its report says nothing about it.
  std::optional<DataPipelineSpec> data;
  /// "checkpoint": saves every N steps to a shared tier (checkpoint_spec.hpp); none: no save in the report.
  std::optional<CheckpointSpec> checkpoint;
  PlacementSpec placement;  ///< "placement": where ranks sit on the cluster's GPUs (placement.hpp)
  /// The cluster's node groups and the scenario's "pool" (docs/heterogeneous.md); no groups: one GPU kind.
  NodePool pool;
  /// The calibration file the scenario names (its `calibration` field, resolved), empty for none.
  /// api::Scenario::resolve applies it to `cluster`, `gpu` and `tuning` and sets `calibrated`.
  std::string calibration;
  bool calibrated = false;
  collectives::CollectiveTuning tuning;  ///< protocol costs of its collectives (a calibration's)
  /// A copy running `split` on `gpus` GPUs, checked as a file's split is (check_split): how a
  /// planner tries splits without writing them into a document and reading it again.
  [[nodiscard]] Scenario with_split(workload::ParallelConfig split, std::int64_t gpus) const;

  /// The cluster's document as read, after overrides: two scenarios with equal keys build the
  /// same fabric, so caches (api::EvalContext) can share what was built and predicted for it;
  /// later lines add what else sets a build apart (the GPU's arch, a calibration).
  std::string cluster_key;
  std::string description;
  std::vector<std::string> sources;      ///< where the split and batch come from
  std::vector<std::string> assumptions;  ///< settings the sources do not give, and why they were chosen
};

/// GPU profiles already read, by file and modification time, for many scenarios naming the
/// same profile (api::EvalContext): reading one, its GEMM table included, costs more than
/// simulating a small step. Thread-safe.
class GpuProfileCache {
 public:
  [[nodiscard]] compute::GpuSpec load(const std::filesystem::path& path);

 private:
  std::mutex mutex_;
  std::map<std::pair<std::string, std::filesystem::file_time_type>, compute::GpuSpec> profiles_;
};

/// Loads and validates `path` after applying `overrides` ("parallel.tp=4"). `repo_root` is the
/// second place relative paths are looked up (models/gpus/<name>.json for the GPU too).
/// Throws InputError naming the file and JSON pointer (or the flag) on any problem.
[[nodiscard]] Scenario load_scenario(const std::filesystem::path& path, const std::filesystem::path& repo_root,
                                     const std::vector<std::string>& overrides = {});

/// The same for a scenario already read, e.g. one embedded in a validation cases file: `source`
/// names it in messages ("cases.json /cases/3/scenario"), relative paths are tried in `dir`, then
/// under `repo_root`.
[[nodiscard]] Scenario parse_scenario(nlohmann::json document, const std::string& source,
                                      const std::filesystem::path& dir, const std::filesystem::path& repo_root,
                                      const std::vector<std::string>& overrides = {});

/// The same with typed changes; errors in their paths name `origin`. GPU profiles come from
/// `profiles` when given.
[[nodiscard]] Scenario parse_scenario(nlohmann::json document, const std::string& source,
                                      const std::filesystem::path& dir, const std::filesystem::path& repo_root,
                                      const std::vector<Override>& changes, const std::string& origin,
                                      GpuProfileCache* profiles = nullptr);

/// parse_scenario without check_split: for a caller that replaces the split before it is used
/// (Scenario::with_split), so that the file's own split need not fit the job it is planned for.
[[nodiscard]] Scenario read_scenario(nlohmann::json document, const std::string& source,
                                     const std::filesystem::path& dir, const std::filesystem::path& repo_root,
                                     const std::vector<Override>& changes, const std::string& origin,
                                     GpuProfileCache* profiles = nullptr);

/// What parse_scenario checks of a scenario's split: against its overlap switches, its model and
/// GPU count, the simulator's limits and its placement. InputError naming the scenario's source.
void check_split(const Scenario& s);

/// Ranks whose groups want one NVLink domain: lcm(tp·cp, expert_tp·ep) (placement.hpp).
[[nodiscard]] std::int64_t nvlink_block(const workload::ParallelConfig& split);

/// The scenario's placement of its ranks on its cluster (InputError naming /placement).
[[nodiscard]] Placement place_ranks(const Scenario& scenario);

}  // namespace ctwin::replay
