#pragma once
// The splits a plan considers (`ctwin plan`): every combination of the axes below, each checked
// by the rules of plan_rules.hpp. Axes, for a model on `gpus` GPUs of a cluster:
//   tp, pp      every divisor of the GPU count (the rules drop what the model or NVLink refuse)
//   cp          1, 2, 4, 8, 16
//   ep          1 for a dense model; every divisor of the experts for an MoE model (expert_tp 1)
//   pipeline    the even split, and with pp > 1 Megatron-Core's account_for_embedding/loss_in_
//               pipeline_split (the first and last model chunks give a layer's slot to the
//               embedding and the loss)
//   schedule    1F1B (vpp 1), and interleaved with vpp 2..min(32, layers)
//   micro_batch 1, 2, 4, 8
//   recompute   none, selective, full
//   optimizer   plain data parallelism (zero 0), the distributed optimizer (ZeRO-1), ZeRO-2, ZeRO-3
// Sequence parallelism is on whenever tp > 1 (Megatron-LM practice: it only removes
// activation memory and replaces all-reduces by reduce-scatter/all-gather pairs of the same
// bytes); dp is what the GPUs leave, gpus / (tp·pp·cp).
//
// `--fix field=value` narrows an axis to one value; any other field is set on the scenario.
//
// MoE models follow two more rules, after memory, those of Megatron-Core's MoE tuning guide
// ("ensure the EPxTP communication within the NVLink domain"; megatron/core/transformer/moe/
// README.md) and of the published recipes (DeepSeek-V3, Qwen3, Mixtral: optimizer state sharded,
// parameters not), each waived where memory leaves no choice:
//   moe.ep_domain  an EP x TP group wider than one NVLink domain only where no ep that keeps it
//                  within the domain fits the same split (same tp, pp, cp, schedule, micro-batch,
//                  recompute, optimizer): crossing the domain is kept where it pays in memory;
//   moe.zero       ZeRO-2/3 only where the same split with the distributed optimizer (ZeRO-1)
//                  does not fit: the replay overlaps ZeRO-3's per-micro-batch parameter gathers
//                  with compute, which makes it look free where recipes do not use it.
// A --fix on parallel.ep, or on the optimizer, turns the rule on that axis off.
//
// Rules are applied level by level, so that a space of millions costs a few thousand checks:
// (tp, pp, cp, ep, pipeline) with the simplest rest (1F1B, micro-batch 1, no recompute, zero 0);
// then the schedule; then each full candidate. A combination that fails at a level fails for
// every value of the axes below it, and all of them count against that level's rule.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ctwin/plan/plan_rules.hpp"
#include "ctwin/core/overrides.hpp"
#include "ctwin/fabric/cluster_spec.hpp"
#include "ctwin/compute/gpu_spec.hpp"
#include "ctwin/workload/model_spec.hpp"
#include "ctwin/workload/parallel_config.hpp"

namespace ctwin::api {

struct OptimizerChoice {
  int zero = 0;
  bool distributed_optimizer = false;
};

struct PlanAxes {
  std::vector<std::int64_t> tp, pp, cp, ep;
  std::vector<bool> pipeline_accounting;  ///< false: even split; true: embedding and loss take layer slots
  std::vector<workload::PipelineSchedule> schedule;
  std::vector<std::int64_t> vpp;  ///< for the interleaved schedule (1F1B runs vpp 1)
  std::vector<std::int64_t> micro_batch;
  std::vector<workload::Recompute> recompute;
  std::vector<OptimizerChoice> optimizer;
  std::optional<std::int64_t> dp;  ///< a fixed dp: candidates with another are removed by the dp rule
};

/// The axes of the file comment for `model` on `gpus` GPUs.
[[nodiscard]] PlanAxes default_axes(const workload::ModelSpec& model, std::int64_t gpus);

/// Whether `fix` names an axis ("parallel.tp", "training.micro_batch", "parallel.recompute",
/// "parallel.schedule", "parallel.vpp", "parallel.zero", "parallel.distributed_optimizer", ...);
/// when it does, the axis is narrowed to its value (InputError naming --fix for a value of the
/// wrong type or range).
bool apply_fix(PlanAxes& axes, const Override& fix);

struct PlanCandidate {
  std::int64_t index = 0;  ///< position among the survivors, in enumeration order
  workload::ParallelConfig split;
  /// On a pool of several GPU kinds, which of the plan's assignments it runs (plan_pool.hpp); else 0.
  std::size_t assignment = 0;
};

struct PlanSpace {
  std::int64_t enumerated = 0;  ///< combinations of the axes
  RuleCounts rules;             ///< what removed the others
  std::vector<PlanCandidate> survivors;
};

struct SpaceInputs {
  const workload::ModelSpec& model;
  const fabric::ClusterSpec& cluster;
  const compute::GpuSpec& gpu;
  std::int64_t gpus = 0;
  /// Training settings (seq_len, global_batch, precision, attention, gradient precision, cp_comm)
  /// every candidate keeps; the axes replace the rest.
  workload::ParallelConfig training;
  double memory_margin = 0;  ///< share of HBM the memory rule keeps free (plan_rules.hpp)
};

[[nodiscard]] PlanSpace enumerate_plan_space(const SpaceInputs& inputs, const PlanAxes& axes);

}  // namespace ctwin::api
