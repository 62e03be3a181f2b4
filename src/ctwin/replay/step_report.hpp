#pragma once
// What one simulated training step amounts to (the `ctwin run` report fields of docs/training-step.md).
//
// Breakdown, per simulated rank then averaged over the pipeline ranks (so the parts add up to
// the step time): every instant of [0, step] is attributed to the first of compute (a kernel
// running), optimizer, exposed communication (tp, cp, ep, pp, dp in that order when several are
// in flight and no kernel runs) and bubble (the rank idle, waiting on another).
// mfu = model FLOPs / (step · GPUs · dense peak of the precision's GEMM dtype).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ctwin/replay/checkpoint_save.hpp"
#include "ctwin/replay/data_pipeline.hpp"
#include "ctwin/replay/replay.hpp"
#include "ctwin/replay/scenario.hpp"

namespace ctwin::replay {

struct ExposedComm {
  double tp = 0, pp = 0, dp = 0, cp = 0, ep = 0;
  [[nodiscard]] double total() const { return tp + pp + dp + cp + ep; }
};

struct StepBreakdown {
  double compute_s = 0;
  ExposedComm exposed_comm_s;
  double bubble_s = 0;
  double optimizer_s = 0;
  double exposed_io_s = 0;  ///< the step waiting for its data loader (scenarios with "data" only)
};

struct MemoryGib {
  double weights = 0, grads = 0, optimizer = 0, activations = 0, other = 0, total = 0;  ///< other: fp8 copies, overhead
};

struct StepReport {
  double step_time_s = 0;
  double tokens_per_s = 0;
  double model_tflops_per_gpu = 0;
  double hardware_tflops_per_gpu = 0;
  double mfu = 0;
  double comm_ratio = 0;  ///< exposed communication / step
  StepBreakdown breakdown;
  MemoryGib memory_gib_per_gpu;
  std::int64_t memory_stage = 0;  ///< the pipeline rank memory_gib_per_gpu describes: the one needing most
  std::vector<double> memory_total_gib_per_stage;  ///< every pipeline rank's total, in rank order
  bool fits_memory = false;
  double model_flops_per_step = 0;
  double hardware_flops_per_step = 0;
  std::int64_t micro_batches = 0;
  /// A pool balanced by speed whose DP replicas run on different GPU kinds: micro-batches per DP
  /// replica, in rank order (dp_shares.hpp); empty when every replica runs micro_batches.
  std::vector<std::int64_t> dp_shares;
  std::int64_t dp = 0;
  std::uint64_t events = 0;
  std::optional<DataPipelineTiming> data_pipeline;  ///< the loader's timing, scenarios with "data" only
  /// What saving costs, scenarios with "checkpoint" only; step_time_s is a step without a save.
  std::optional<CheckpointTiming> checkpoint;
};

/// The breakdown of one replayed step (see the file comment).
[[nodiscard]] StepBreakdown breakdown_of(const ReplayResult& replay);

/// The report of `replay`, a step of `scenario`; `fabric_read_s`: its loader's remote reads as
/// simulated on the flow fabric (storage_reads.hpp), none for the closed form.
[[nodiscard]] StepReport make_step_report(const Scenario& scenario, const ReplayResult& replay,
                                          std::optional<double> fabric_read_s = std::nullopt);

/// Every reported time, rate, ratio and size finite and not negative (InternalError if not),
/// and the MFU at most 100% (InputError naming the scenario's GPU profile if not).
void check_step_report(const StepReport& report, const Scenario& scenario);

}  // namespace ctwin::replay
