#pragma once
// One goodput question end to end, for every front end: a scenario's build and step time, a
// reliability model, a checkpoint tier and a spare policy become the Monte Carlo's
// configuration; the result comes back with the closed forms beside it (expected interruptions
// Λ·D, the job's MTBF 1/Λ, Young/Daly's interval and the first-order ETTR there).

#include <functional>
#include <optional>
#include <vector>

#include "ctwin/analysis/checkpoint_model.hpp"
#include "ctwin/analysis/goodput_simulation.hpp"
#include "ctwin/analysis/reliability_model.hpp"
#include "ctwin/analysis/spare_pool.hpp"
#include "ctwin/replay/scenario.hpp"

namespace ctwin::fabric {
struct FabricSummary;
}

namespace ctwin::analysis {

struct GoodputInputs {
  double days = 0;
  std::optional<double> interval_s;  ///< training time between checkpoints; nullopt: the simulated best
  SparePolicy spares;
  CheckpointOptions checkpoint;
  /// The checkpoint's cost as given (a scenario's "checkpoint", studies/goodput_checkpoint.hpp);
  /// none: `tier`'s closed form with `checkpoint`'s size.
  std::optional<CheckpointCost> checkpoint_cost;
  int runs = 1000;
  std::uint64_t seed = 1;
  double step_time_s = 0;   ///< one training step (ctwin run), for rounding intervals and tokens
  double tokens_per_s = 0;  ///< of the whole job
  int search_points = 17;   ///< grid of the interval search
  std::function<double(long long running)> replica_share;  ///< GoodputConfig's (shrink)
  double straggler_rate_per_gpu_hour = 0;  ///< throttling events per GPU-hour (0: none)
  double straggler_duration_s = 0;
  std::function<double(long long gpu)> straggler_effect;  ///< StragglerModel's
  /// A dual-plane build (HPN): a leaf down halves its nodes' NICs instead of cutting them off, so
  /// the model's leaf-scope failures become SlowdownCauses of this effect (the step with a leaf
  /// down over the healthy step). nullopt: they interrupt the job, as on a single plane.
  std::optional<double> leaf_down_effect;
};

struct GoodputStudy {
  ComponentCounts counts;
  std::vector<FailureSource> sources;
  double failures_per_hour = 0;  ///< Λ
  CheckpointCost checkpoint;
  ReplicaLayout layout;
  double mtbf_s = 0;            ///< 1/Λ
  double recovery_s = 0;        ///< detection + mean switchover + launch + load: R of the closed form
  double young_daly_s = 0;      ///< √(2·δ·M), δ the blocking part of a checkpoint
  double young_daly_ettr = 0;   ///< first_order_ettr at young_daly_s
  double formula_ettr = 0;      ///< first_order_ettr at the interval simulated
  std::optional<IntervalSearch> search;  ///< when the interval was left to ctwin
  GoodputConfig config;
  GoodputResult result;
  double tokens_per_s = 0;
  double step_time_s = 0;
  /// Indexes into `sources` of the classes that slow the job instead of interrupting it (config.slowdowns).
  std::vector<std::size_t> slowdown_sources;
  double slowdowns_per_hour = 0;  ///< their rate: failures not in Λ
  double expected_slowdown_s = 0;  ///< Σ λ·D·MTTR·(1 − 1/effect)·τ/(τ+δ): the first-order loss beside the simulated one
};

/// Throws InputError for impossible inputs (an interval shorter than the checkpoint write, a run
/// of no time, a spare pool larger than the build).
[[nodiscard]] GoodputStudy run_goodput_study(const replay::Scenario& scenario, const fabric::FabricSummary& build,
                                             const ReliabilityModel& model, const StorageTier& tier,
                                             const GoodputInputs& inputs);

}  // namespace ctwin::analysis
