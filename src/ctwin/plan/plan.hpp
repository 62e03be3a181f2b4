#pragma once
// `ctwin plan`: the best splits of a model on a cluster (plan_space.hpp for what is searched and
// plan_rules.hpp for what is removed). Two phases, as a planner would do by hand:
//   1. every surviving candidate with the `analytical` network (each collective its predicted
//      time alone on the fabric): cheap, and enough to order thousands;
//   2. the best M of phase 1 again on the shared `flow` fabric (every collective's traffic on one
//      max-min simulation of the cluster, contention included), which decides their final order.
// Candidates beyond M keep their analytical result and rank after the M. Both phases run in
// parallel through one EvalContext and write each candidate's slot, so the result does not
// depend on the thread count. Ties rank by enumeration order.
//
// Each result carries its breakdown (compute, recompute, bubble, exposed TP/PP/DP/CP/EP,
// optimizer: the parts add up to the step time) and the parts that differ most from the first
// result's, measured in the same phase, which say why it ranks where it does.
//
// Shards (`--shard i/N`): shard i evaluates the survivors whose index is i-1 modulo N and runs
// phase 2 on its own best M; the global best M are among the union of the shards' best M, so
// merge_plans gives exactly the one-machine result.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "ctwin/analysis/error_bands.hpp"
#include "ctwin/api/evaluate.hpp"
#include "ctwin/plan/plan_pool.hpp"
#include "ctwin/plan/plan_space.hpp"
#include "ctwin/api/shard.hpp"
#include "ctwin/fabric/build_checks.hpp"
#include "ctwin/replay/step_figures.hpp"

namespace ctwin::api {

enum class PlanObjective { kThroughput, kMfu };

/// "throughput" or "mfu"; InputError naming --objective otherwise.
[[nodiscard]] PlanObjective parse_plan_objective(const std::string& text);
[[nodiscard]] std::string plan_objective_name(PlanObjective objective);

struct PlanOptions {
  std::optional<std::int64_t> gpus;  ///< the scenario's when not given
  PlanObjective objective = PlanObjective::kThroughput;
  std::vector<std::string> fixes;    ///< "parallel.tp=8": an axis narrowed, or any scenario field set
  /// Where every candidate runs (`--placement`): a policy name or the scenario's placement object
  /// (docs/cluster.md); null keeps the scenario's own. plan_placement.hpp.
  nlohmann::json placement;
  /// Share of each GPU's HBM the memory rule keeps free (`--memory-margin`; plan_rules.hpp says why 10 %).
  double memory_margin = kDefaultMemoryMargin;
  std::size_t flow_top = 32;         ///< M: candidates re-ranked on the flow fabric (0: none)
  /// Results the caller shows (0: every candidate). With flow_top it says how many of the best
  /// must be exact: only candidates whose step-time lower bound can still beat the
  /// max(top, flow_top)-th best are replayed (plan_bound.hpp, docs/plan.md). Shards replay every candidate.
  std::size_t top = 0;
  bool exhaustive = false;  ///< replay every candidate, whatever its bound (`--exhaustive`)
  /// The flow phase's replays: exact (kFull) or one scalable unit per stage (`--flow-sample su`,
  /// an approximation measured in docs/plan.md).
  replay::FlowSample flow_sample = replay::FlowSample::kFull;
  unsigned jobs = 1;
  std::size_t shard_index = 0;  ///< 0-based
  std::size_t shard_count = 1;
  /// Called, one call at a time, as candidates finish: phase ("bound", "analytical", "flow"), done,
  /// total; total 0 when it is not known in advance (the bounded analytical phase).
  std::function<void(const char*, std::size_t, std::size_t)> progress;
  /// Called once, before any replay, with a line for the user when `top` asks for more results
  /// than there are valid candidates: no bound can prune then, every candidate is replayed and
  /// listed, and the caller should know how many replays that is before they start (issue 36).
  std::function<void(const std::string&)> note;
};

/// The note evaluate_plan gives when `top` exceeds the `candidates` a run would replay.
[[nodiscard]] std::string plan_top_note(std::size_t top, std::size_t candidates, unsigned jobs);

/// One phase's result for a candidate, seconds per step (the breakdown adds up to step_time_s).
/// A candidate's step: its headline figures (the plan prints step time, tokens/s, MFU, model
/// TFLOP/s per GPU, memory and bubble) and the rest of its breakdown.
struct PlanScore : replay::StepFigures {
  double compute_s = 0;    ///< kernels other than recomputation
  double recompute_s = 0;  ///< the compute time's share of recomputed FLOPs (from FLOP counts, an estimate)
  double optimizer_s = 0;
  replay::ExposedComm exposed_s;
};

/// The parts of a candidate's step, under the names its JSON's breakdown_s and its `why` give them
/// ("compute", "recompute", "bubble", "exposed_tp" … "optimizer"): they add up to the step time.
[[nodiscard]] std::vector<std::pair<std::string, double>> plan_score_parts(const PlanScore& score);

struct PartDelta {
  std::string part;  ///< "bubble", "exposed_tp", "recompute", ...
  double delta_s = 0;  ///< this candidate's minus the first result's
};

struct PlanEntry {
  std::int64_t index = 0;  ///< among the survivors, in enumeration order
  workload::ParallelConfig split;
  std::int64_t dp = 0;
  std::int64_t micro_batches = 0;
  std::string invalid;  ///< why the step could not be simulated; empty when it was
  PlanScore analytical;
  std::optional<PlanScore> flow;  ///< for the best flow_top by analytical rank
  std::int64_t analytical_rank = 0;  ///< 1-based
  std::vector<PartDelta> why;        ///< largest differences from the first result, at most 3
  bool replayed = false;             ///< went through the bounded phase's replay (not in the JSON)
  /// On a pool of several GPU kinds: the plan's assignment it ran (plan_pool.hpp) and what it is.
  std::size_t assignment = 0;
  std::optional<PlanPoolChoice> pool;
};

/// How far a plan's figures can be trusted: which parts of the twin were calibrated on
/// measurements of the target. An uncalibrated profile's training steps come out faster than
/// published runs (docs/validation.md gives the error), so its MFUs are upper estimates; the
/// order of splits is what the planner is for.
struct PlanCalibration {
  /// The GPU profile carries a training_time_scale fitted on measured layers or runs
  /// (`ctwin calibrate --layers` / `--training`, or a calibration bundle).
  bool compute = false;
  /// The scenario names a calibration of the cluster's collectives (its `calibration` field).
  bool network = false;
  std::string compute_source;  ///< where the profile's scale comes from, when calibrated
};

/// What a plan and one split's rank (plan/plan_rank.hpp) share: the problem planned and the size
/// of its space, filled by plan_space_of and written by plan_header_json.
struct PlanHeader {
  std::string model;
  std::string cluster;
  std::string gpu;
  std::int64_t gpus = 0;
  std::int64_t global_batch = 0;
  std::int64_t seq_len = 0;
  PlanObjective objective = PlanObjective::kThroughput;
  std::vector<std::string> fixes;
  /// The placement every candidate ran on, as the scenario writes it; null for the default (and
  /// then not in the JSON, so that such plans keep their bytes).
  nlohmann::json placement;
  /// On a pool of several GPU kinds: its groups and how many assignments each split was tried
  /// in (plan_pool.hpp); 0 assignments (and nothing in the JSON) otherwise.
  std::vector<std::string> pool_groups;
  std::int64_t pool_assignments = 0;
  double memory_margin = 0;
  PlanCalibration calibration;
  /// The class of every candidate's prediction (analysis/error_bands.hpp); its network is the
  /// scenario's, and each score takes the one it was replayed on.
  analysis::ErrorBandKey error_band;
  /// The build's warnings (api/build_warnings.hpp), as `ctwin run` prints them: every candidate
  /// runs on the same build, and the rules remove the splits that would add one of their own
  /// (tp beyond the NVLink domain), so they are the warnings of every row.
  std::vector<fabric::BuildWarning> warnings;
  std::int64_t enumerated = 0;
  std::int64_t survivors = 0;
};

/// One sentence on how sure the figures are, for the front ends ("uncalibrated: ..."), empty when
/// both the compute and the collectives are calibrated.
[[nodiscard]] std::string calibration_note(const PlanHeader& header);

struct PlanResult : PlanHeader {
  std::size_t flow_top = 0;
  replay::FlowSample flow_sample = replay::FlowSample::kFull;  ///< in the JSON only when not full
  RuleCounts rules;  ///< the enumeration's rules; steps the replay refuses count as "replay"
  std::size_t shard_index = 0, shard_count = 1;
  std::string scenario_fingerprint;  ///< of the planned scenario (api/shard.hpp); shards carry it
  /// How the analytical phase got its ranking: `bounded` candidates had their step-time lower
  /// bound computed (0 when exhaustive), `replayed` went through the event replay; the others
  /// were ranked out by their bound alone and are not among `entries`.
  bool exhaustive = true;
  std::int64_t bounded = 0;
  std::int64_t replayed = 0;
  /// Wall-clock seconds of each part here (not a result: they differ run to run; not in the JSON).
  double bound_wall_s = 0, analytical_wall_s = 0, flow_wall_s = 0;
  std::vector<PlanEntry> entries;  ///< this run's candidates, best first (invalid ones last)
};

/// Plans `base`'s model, cluster, GPUs and global batch. When every candidate is removed, an
/// InputError naming --fix (or the scenario) says which rule removed the last ones.
[[nodiscard]] PlanResult evaluate_plan(const Scenario& base, EvalContext& context, const PlanOptions& options = {});

/// Analytical ranks, flow results kept for the best flow_top only, the final order and the
/// reasons against the first: how both a local run and a merge of shards end, so both give the
/// same result from the same candidates.
void finish_plan(PlanResult& result);

/// {"model", ..., "rules": [...], "results": [the first `top` valid entries (0: all entries,
/// invalid included, as shards write them)]}.
[[nodiscard]] nlohmann::json plan_json(const PlanResult& result, std::size_t top);

/// The figure a plan ranks on: tokens/s or MFU.
[[nodiscard]] double objective_value(const PlanScore& score, PlanObjective objective);

/// Whether `entry`'s p10-p90 band of the plan's objective (tokens/s or MFU) misses `best`'s: on
/// the flow fabric when both were replayed there, else on the analytical network.
[[nodiscard]] bool distinguishable_from_best(const PlanEntry& entry, const PlanEntry& best, PlanObjective objective,
                                             const analysis::ErrorBands& bands, const analysis::ErrorBandKey& key);

/// The one-machine result from shards' plan_json(…, 0) outputs (`sources` name them in errors):
/// the same plan, every shard once.
[[nodiscard]] PlanResult merge_plans(const std::vector<nlohmann::json>& shards, const std::vector<std::string>& sources);

// ---- Hooks for one split's rank (plan/plan_rank.hpp): the plan's own setup and replay ----

/// What a plan searches before it replays anything: the scenario's model, cluster and GPU
/// with a placeholder split (the settings among --fix applied), the GPUs and global batch
/// planned for, and the axes the other fixes narrowed.
struct PlanSetup {
  replay::Scenario resolved;
  std::int64_t gpus = 0;
  std::int64_t global_batch = 0;
  PlanAxes axes;
  replay::FlowSample flow_sample = replay::FlowSample::kFull;  ///< of the flow replays
  double memory_margin = 0;
  /// `resolved` once per assignment of a pool of several GPU kinds (plan_pool.hpp); empty otherwise.
  std::vector<replay::Scenario> assigned;
};

/// evaluate_plan's first step (options: gpus and fixes), with its errors.
[[nodiscard]] PlanSetup prepare_plan(const Scenario& scenario, EvalContext& context, const PlanOptions& options);

/// The second: the space `setup` enumerates and the header of its result. When no split
/// survives, an InputError naming --fix (or the scenario) and the rule that removed the last.
struct PlannedSpace {
  PlanSpace space;
  PlanHeader header;
};
[[nodiscard]] PlannedSpace plan_space_of(const PlanSetup& setup, const Scenario& scenario, const PlanOptions& options);

/// {"model", "cluster", "gpu", "gpus", "global_batch", "seq_len", "objective", "fixes",
///  "memory_margin", "calibrated": {"compute", "network", "note"}, "warnings": [{"check", "message", "fix"}],
///  "enumerated", "survivors"}: the part of plan_json and split_rank_json they share.
[[nodiscard]] nlohmann::json plan_header_json(const PlanHeader& header);

/// One candidate replayed as the plan replays it (`invalid` set when the replay refuses it).
[[nodiscard]] PlanEntry evaluate_plan_candidate(const PlanSetup& setup, const PlanCandidate& candidate,
                                                network::ModelKind network, EvalContext& context);

/// The JSON of one result, as plan_json writes it at `rank`.
[[nodiscard]] nlohmann::json plan_entry_json(const PlanEntry& entry, std::size_t rank);
/// The same with the error bands plan_json puts on a valid result: each score's p10–p90 and, when
/// `best` is given (a result ranked after it), "distinguishable_from_best". Shared with --rank-of.
[[nodiscard]] nlohmann::json plan_entry_banded_json(const PlanEntry& entry, std::size_t rank, const PlanEntry* best,
                                                    const PlanHeader& header, const analysis::ErrorBands& bands);
/// {"analytical": class, "flow": class}: the band classes of the header's candidates.
[[nodiscard]] nlohmann::json plan_error_band_classes_json(const PlanHeader& header, const analysis::ErrorBands& bands);

}  // namespace ctwin::api
