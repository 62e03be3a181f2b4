#pragma once
// DP micro-batch shares by speed on a heterogeneous pool (docs/heterogeneous.md, "DP shares").
//
// Megatron's rank order puts DP replica r of pipeline stage st on ranks
// [st·S + r·tc, st·S + (r+1)·tc) (S = tp·cp·dp, tc = tp·cp). When the groups' boundary falls
// between the replicas of a stage, the replicas run on different GPU kinds; with balance "speed"
// each replica then gets micro-batches in proportion to its speed instead of the same count:
//   - its time per micro-batch is its slowest stage's, Σ over the stage's chunks of layers × one
//     middle layer's kernel time (node_pool.hpp's group_layer_seconds) on the slowest group its
//     ranks of that stage sit in; its weight is 1 / that;
//   - the global batch's micro-batches (global_batch / micro_batch) are shared by
//     proportional_shares() (floors, at least one each, largest remainders, ties to the lower
//     replica), in units of pp under the interleaved schedule (which needs multiples of pp);
//   - replicas with the same groups per stage and the same share form a class, replayed as the
//     one-rank-per-stage step with the class's micro-batch count; the step is the slowest class's.
//     Each class's DP gradient sync (priced for the whole DP group) follows its own last backward,
//     so the step's sync waits for the last replica; with free communication this is exact.
// Nothing changes (the shares are empty) under balance "even", when every replica sits on the
// same groups, or when the speeds are equal: such pools keep their bytes.

#include <cstdint>
#include <vector>

#include "ctwin/replay/scenario.hpp"
#include "ctwin/replay/training_step.hpp"

namespace ctwin::replay {

/// Per DP replica, per pipeline stage, the pool groups that replica's ranks of the stage sit in.
[[nodiscard]] std::vector<std::vector<std::vector<std::size_t>>> dp_replica_groups(const Scenario& scenario);

struct DpShares {
  std::vector<std::int64_t> per_replica;  ///< micro-batches per DP replica, in rank order; empty: all the same
  std::vector<Scenario> classes;          ///< one scenario per class of alike replicas, in order of first replica
};

/// The shares of `scenario` (rules in the file comment); empty unless its pool balances by speed
/// and its replicas differ in speed.
[[nodiscard]] DpShares dp_speed_shares(const Scenario& scenario);
/// Only the micro-batches per replica, from each group's layer time (group_layer_seconds), for a
/// caller that reuses them (the planner); empty as above.
[[nodiscard]] std::vector<std::int64_t> dp_speed_share_counts(const Scenario& scenario,
                                                              const std::vector<double>& layer_s);

/// The step under `shares` (not empty): the slowest class's replay, reported for `scenario`
/// (its global batch and MFU), with report.dp_shares set.
[[nodiscard]] SimulatedStep simulate_dp_shares(const Scenario& scenario, const StepOptions& options,
                                               const DpShares& shares);

}  // namespace ctwin::replay
