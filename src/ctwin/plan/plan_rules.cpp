#include "ctwin/plan/plan_rules.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <string_view>

#include "ctwin/core/error.hpp"
#include "ctwin/workload/memory_model.hpp"

namespace ctwin::api {
namespace {

struct RuleName {
  std::string_view rule;
  std::string_view description;
};

// Planner rules first, then the scenario's checks in the order workload::validate applies them,
// then memory: the order in which a candidate meets them.
constexpr RuleName kRules[] = {
    {"nvlink", "tp at most the GPUs of one NVLink domain (TP traffic stays on NVLink)"},
    {"gpus", "tp·pp·cp divides the GPU count (dp = GPUs / (tp·pp·cp))"},
    {"parallel.tp", "tp divides heads, KV heads and ffn_hidden"},
    {"parallel.ep", "ep divides the experts; ep·expert_tp divides tp·cp·dp (MoE only)"},
    {"parallel.expert_tp", "expert_tp needs an MoE model"},
    {"parallel.sequence_parallel", "an MoE model with tp > 1 needs sequence parallelism"},
    {"parallel.cp", "context parallelism needs full attention"},
    {"training.attention", "context parallelism and sliding windows need a fused attention kernel"},
    {"training.seq_len", "seq_len divisible by 2·cp, and seq_len/cp by tp with sequence parallelism"},
    {"parallel.zero", "ZeRO-2/3 only without pipeline parallelism (pp 1)"},
    {"parallel.distributed_optimizer", "the distributed optimizer is ZeRO-1, not combined with ZeRO-2/3"},
    {"training.global_batch",
     "micro_batch·dp divides the global batch; interleaved: micro-batches a multiple of pp"},
    {"training.micro_batch", "micro_batch·seq_len within 2^26 tokens"},
    {"parallel.schedule", "the interleaved schedule needs pp > 1"},
    {"parallel.vpp", "layers divide evenly into pp·vpp model chunks"},
    {"parallel.pp", "layers divide evenly over pp stages"},
    {"parallel.account_for_embedding_in_pipeline_split",
     "layers + embedding and loss slots divide evenly into pp·vpp model chunks"},
    {"memory", "the worst pipeline stage fits the GPU's HBM less the memory margin (weights, gradients, optimizer, "
               "activations, overhead)"},
    {"moe.ep_domain", "MoE: the EP x TP group within one NVLink domain, unless no EP within it fits the same split"},
    {"moe.zero", "MoE: ZeRO-2/3 only where the distributed optimizer (ZeRO-1) does not fit the same split"},
    {"replay", "the step replay accepts the split (what it does not model is refused)"},
};

// Listed only where they removed something (a plan on one GPU kind without --placement keeps its
// rule list): applied after every rule above, in this order, and before the replay.
constexpr RuleName kLateRules[] = {
    {"pool.balance", "balance \"speed\" sets the layers per stage itself (not with the embedding and loss slots)"},
    {"pool.memory", "every pipeline stage fits the HBM, less the memory margin, of each pool group it sits on "
                    "(plan_pool.hpp)"},
    {"placement", "the placement holds the split's ranks (a node or GPU list long enough, a build large enough "
                  "for its NVLink blocks; plan_placement.hpp)"},
    {"pool.duplicate", "an assignment of the pool giving the same GPU kinds and layers per stage as an earlier one "
                       "of the same split (the same step, listed once)"},
};

const RuleName* late_rule(const std::string& rule) {
  for (const auto& r : kLateRules) {
    if (r.rule == rule) return &r;
  }
  return nullptr;
}

std::string description_of(const std::string& rule) {
  for (const auto& r : kRules) {
    if (r.rule == rule) return std::string(r.description);
  }
  if (const RuleName* late = late_rule(rule)) return std::string(late->description);
  return "the scenario's check on " + rule;
}

}  // namespace

RuleCounts::RuleCounts() {
  for (const auto& r : kRules) rules_.push_back({std::string(r.rule), std::string(r.description), 0, ""});
}

void RuleCounts::add(const std::string& rule, std::int64_t removed, const std::string& example) {
  for (auto& r : rules_) {
    if (r.rule != rule) continue;
    if (r.removed == 0) r.example = example;
    r.removed += removed;
    return;
  }
  // A check not listed (a new rule in workload::validate) goes before memory, which is applied
  // after every check; several such keep the order they were met in. The late rules are met
  // last, in kLateRules' order, before the replay.
  const RuleName* late = late_rule(rule);
  const auto place = std::find_if(rules_.begin(), rules_.end(), [&](const RuleCount& r) {
    if (late == nullptr) return r.rule == "memory";
    const RuleName* other = late_rule(r.rule);
    return r.rule == "replay" || (other != nullptr && other > late);  // late rules in their own order
  });
  rules_.insert(place, {rule, description_of(rule), removed, example});
}

void RuleCounts::merge(const RuleCounts& other) {
  for (const auto& r : other.rules_) {
    if (r.removed > 0) add(r.rule, r.removed, r.example);
  }
}

std::int64_t RuleCounts::total() const {
  std::int64_t sum = 0;
  for (const auto& r : rules_) sum += r.removed;
  return sum;
}

const RuleCount* RuleCounts::last_removing() const {
  for (auto it = rules_.rbegin(); it != rules_.rend(); ++it) {
    if (it->removed > 0) return &*it;
  }
  return nullptr;
}

std::string rule_of_pointer(const std::string& pointer) {
  std::string rule = pointer.starts_with('/') ? pointer.substr(1) : pointer;
  for (char& c : rule) {
    if (c == '/') c = '.';
  }
  // Megatron's two accounting flags fail together (the embedding's is named first).
  if (rule == "parallel.account_for_loss_in_pipeline_split") rule = "parallel.account_for_embedding_in_pipeline_split";
  return rule;
}

std::int64_t nvlink_domain(const fabric::ClusterSpec& cluster) {
  return cluster.server.nvlink ? cluster.server.gpus : 1;
}

RuleVerdict check_split(const workload::ModelSpec& model, const workload::ParallelConfig& split, std::int64_t gpus) {
  try {
    workload::validate(model, split, gpus);
  } catch (const InputError& e) {
    return {rule_of_pointer(e.pointer()), e.message()};
  }
  return {};
}

RuleVerdict check_memory(const workload::ModelSpec& model, const workload::ParallelConfig& split, std::int64_t gpus,
                         const compute::GpuSpec& gpu, double margin) {
  workload::MemoryOptions options;  // as replay::make_step_report sets them
  options.flash_attention = split.flash_attention;
  options.fp32_gradients = split.grad_reduce_in_fp32;
  const workload::MemoryBreakdown memory = workload::memory_per_gpu(model, split, gpus, options);
  const double total = static_cast<double>(memory.total().count());
  const double capacity = static_cast<double>(gpu.hbm_capacity.count());
  if (margin <= 0 ? workload::fits_memory(memory, gpu) : total <= (1 - margin) * capacity) return {};
  constexpr double kGib = 1024.0 * 1024.0 * 1024.0;
  char text[200];
  if (margin <= 0) {
    std::snprintf(text, sizeof text, "stage %lld needs %.1f GiB of %.1f GiB", static_cast<long long>(memory.stage),
                  total / kGib, capacity / kGib);
  } else {
    std::snprintf(text, sizeof text, "stage %lld needs %.1f GiB of the %.1f GiB left by a %.0f %% margin on %.1f GiB",
                  static_cast<long long>(memory.stage), total / kGib, (1 - margin) * capacity / kGib, 100 * margin,
                  capacity / kGib);
  }
  return {"memory", text};
}

double parse_memory_margin(const std::string& text, const std::string& field) {
  std::string_view digits = text;
  const bool percent = digits.ends_with('%');
  if (percent) digits.remove_suffix(1);
  double value = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (digits.empty() || error != std::errc() || end != digits.data() + digits.size() || !std::isfinite(value)) {
    throw InputError(field, "", "'" + text + "' is not a share of HBM (expected e.g. 10% or 0.1)");
  }
  if (percent) value /= 100;
  if (value < 0 || value > 0.5) throw InputError(field, "", "'" + text + "' is outside 0 to 50 % of HBM");
  return value;
}

}  // namespace ctwin::api
