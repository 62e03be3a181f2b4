#pragma once
// A training run's life under failures: a Monte Carlo over independent runs of D days.
//
// Each run is a sequence of running segments and recoveries. While running, the job trains for
// `interval_s` (τ), then blocks for a checkpoint (δ); an asynchronous checkpoint becomes durable
// `persist_s` after its blocking part ends. Failures arrive as one Poisson process of rate
// Λ = Σ_c λ_c (independent exponential components, memoryless, so the process is the same during
// recoveries); each picks its cause c with probability λ_c / Λ. A failure loses the work done
// since the last durable checkpoint and starts a recovery:
//   detection → wait for nodes (when no spare is left) → spare switchover → launch + load.
// A failure during a recovery starts it again from its own detection. Parts a failure takes go
// to repair (exponential, mean MTTR of the part) and come back as hot spares.
//
// Accounting per run (seconds, they sum to D): useful compute (durable work), checkpoint time,
// lost work, detection, waiting for spares, switchover, restart. ETTR = useful / D; goodput =
// tokens trained / tokens of an ideal run = Σ useful · (replicas running / replicas) / D.
//
// Determinism: each run draws from its own xoshiro256** generator seeded by splitmix64 from
// (seed, run index); exponentials come from the inverse CDF, never std:: distributions, whose
// output differs between standard libraries. Results do not depend on thread count or order.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ctwin/analysis/spare_pool.hpp"

namespace ctwin::analysis {

struct FailureCause {
  std::string name;
  double rate_per_s = 0;
  int nodes_taken = 0;       ///< 0: the job restarts on the same nodes
  double repair_mean_s = 0;  ///< MTTR of the part, for causes that take nodes
};

/// How the job's data-parallel replicas sit on nodes.
struct ReplicaLayout {
  long long replicas = 1;           ///< DP
  long long nodes_per_replica = 1;  ///< ceil(tp·pp·cp / GPUs per node)
  long long replicas_per_node = 1;  ///< replicas sharing a node (small replicas), else 1
};

/// GPUs throttled for a while (thermal or power capping, a slow clock): events at a rate per
/// GPU-hour, each slowing one GPU, drawn uniformly, for `duration_s`. While one lasts, the
/// synchronous job trains at 1/effect of its pace, effect = its step time with that GPU slowed
/// over the healthy one (`ctwin run --degrade gpu:RANK=SPEED`); of overlapping events the
/// slowest counts. Drawn from a stream of their own, so a rate of 0 leaves every failure draw
/// as it was.
struct StragglerModel {
  double rate_per_s = 0;  ///< events per second over the whole job
  double duration_s = 0;
  long long gpus = 1;     ///< GPUs an event picks from
  /// Step time with `gpu` throttled over the healthy step time (≥ 1); called from one thread.
  std::function<double(long long gpu)> effect;
};

/// Failures that slow the job instead of stopping it: a dual-plane leaf (HPN) down leaves its nodes
/// the other plane at half their NICs' rate, so the synchronous job trains at 1/effect of its pace
/// until the leaf is repaired (exponential, mean `repair_mean_s`), no restart. Drawn, like the
/// stragglers, from a stream of their own; where they overlap a straggler the slowest counts.
struct SlowdownCause {
  std::string name;
  double rate_per_s = 0;     ///< over the whole build
  double repair_mean_s = 0;  ///< MTTR of the part: how long the job runs degraded
  double effect = 1;         ///< degraded step time over the healthy one (≥ 1)
};

struct GoodputConfig {
  double duration_s = 0;
  std::vector<FailureCause> causes;
  double detection_s = 0;
  double launch_s = 0;
  double load_s = 0;
  double interval_s = 0;        ///< τ: training time between checkpoints
  double blocking_s = 0;        ///< δ: the job's stop per checkpoint
  double persist_s = 0;         ///< asynchronous: blocking end to durable
  SparePolicy spares;
  ReplicaLayout layout;
  /// With fewer replicas running (shrink): the smaller job's tokens per second as a share of the
  /// whole job's. Null: running / replicas (each replica's tokens, the step time unchanged).
  /// Called once per segment trained short of replicas, in run order, from one thread.
  std::function<double(long long running)> replica_share;
  StragglerModel stragglers;
  std::vector<SlowdownCause> slowdowns;  ///< none on builds where every part failure interrupts
  int runs = 1000;
  std::uint64_t seed = 1;
};

/// Mean and spread over runs.
struct Spread {
  double mean = 0;
  double stddev = 0;
  double p5 = 0;
  double p50 = 0;
  double p95 = 0;
};

/// Mean seconds per run.
struct TimeAccount {
  double useful_s = 0;
  double checkpoint_s = 0;
  double lost_work_s = 0;
  double detection_s = 0;
  double waiting_s = 0;
  double switchover_s = 0;
  double restart_s = 0;
  double shrunk_s = 0;  ///< useful time's share lost to running with fewer replicas (goodput, not ETTR)
  double straggler_s = 0;  ///< training time lost to throttled GPUs: kept training · (1 − 1/effect)
  double slowdown_s = 0;   ///< training time lost to parts down that only slow the job (a dual-plane leaf)
};

struct GoodputResult {
  int runs = 0;
  double duration_s = 0;
  double interval_s = 0;
  std::vector<double> interruptions_by_cause;  ///< mean per run, in config.causes order
  Spread interruptions;
  Spread ettr;
  Spread goodput;
  TimeAccount time;
  double expected_interruptions = 0;  ///< Λ·D, the closed form the mean converges to
  double straggler_events = 0;        ///< mean per run
  double slowdown_events = 0;         ///< mean per run: failures of SlowdownCause parts
  double pool_dry_probability = 0;    ///< runs in which a failure found no hot and no cold spare
  double hot_dry_probability = 0;     ///< runs in which a failure found no hot spare
  double mtbf_s = 0;                  ///< D / interruptions over all runs (seeds: total time / failures)
  double mttr_s = 0;                  ///< time not training per interruption (detection to resumed)
  double availability = 0;            ///< (D − down) / D, down = detection + waiting + switchover + restart
};

/// Throws InputError naming the quantity when the configuration cannot describe a run (no time,
/// no interval, an interval shorter than the checkpoint write).
[[nodiscard]] GoodputResult simulate_goodput(const GoodputConfig& config);

/// Young's optimum (1974), √(2·δ·M), with M the job's MTBF; Daly (2006) adds terms of order δ.
[[nodiscard]] double young_daly_interval_s(double blocking_s, double mtbf_s);

/// First-order ETTR of checkpoint-restart: τ/(τ+δ) · (1 − ((τ+δ)/2 + R)/M), R the time from a
/// failure to training again. Valid for δ ≪ τ ≪ M.
[[nodiscard]] double first_order_ettr(double interval_s, double blocking_s, double mtbf_s, double recovery_s);

struct IntervalPoint {
  double interval_s = 0;
  double ettr = 0;
};

struct IntervalSearch {
  std::vector<IntervalPoint> points;  ///< the grid, simulated with common random numbers
  double best_interval_s = 0;         ///< parabola through the best grid point and its neighbours (log τ)
  double best_ettr = 0;               ///< simulated at best_interval_s
};

/// The interval that maximizes mean ETTR, searched on a geometric grid from `lowest_s` to
/// `highest_s` (`points` of them), each simulated with `config`'s runs and seed. `step_s` > 0
/// rounds intervals up to whole training steps.
[[nodiscard]] IntervalSearch search_interval(GoodputConfig config, double lowest_s, double highest_s, int points,
                                             double step_s);

}  // namespace ctwin::analysis
