#pragma once
// A lower bound on the step time of replay_step with the isolated executor (every collective and
// send its predicted time), computed without the event engine: what lets the planner rank
// thousands of candidates and replay only those that can still make its top (plan/plan.cpp).
//
// It is a proof, not a fit: every term is a constraint the replay cannot escape (replay.hpp),
// each op's duration is the one the replay gives it, and every constraint the replay adds on top
// (a stream busy with an earlier list's op, a send queued behind another, a prefetched gather)
// is dropped, which can only make the bound smaller. The constraints kept:
//   - within one op list (a chunk pass, or the after-backward ops): the issue loop holds at a
//     Join::kNow op until it ends and at an op's wait_for until that ends; each stream runs its
//     ops one at a time in issue order; the list ends when its kNow and kTaskEnd ops have ended.
//     Replaying the list alone from idle streams therefore gives the least time it can take;
//   - a rank runs its lists one after another in pipeline order (a list starts when the previous
//     one ended);
//   - a pass whose input comes from another stage starts after that stage's pass ended and its
//     send (p2p time) arrived; without pp overlap a rank's next list also waits for its own send;
//   - the after-backward list starts after the last pass and after every Join::kStepEnd op;
//   - the step ends when every rank's after-backward list has ended.
// With only these, the schedule is a longest path through the tasks: O(ops + tasks) arithmetic.

#include <vector>

#include "ctwin/core/units.hpp"
#include "ctwin/replay/layer_ops_cache.hpp"
#include "ctwin/replay/op_graph.hpp"
#include "ctwin/replay/schedule.hpp"
#include "ctwin/replay/training_step.hpp"

namespace ctwin::replay {

/// ≤ replay_step(work, order, pp_overlap).step_time with the isolated executor.
[[nodiscard]] SimTime step_time_lower_bound(const StepWork& work, const std::vector<std::vector<PipelineTask>>& order,
                                            bool pp_overlap);

/// The bound for simulate_step(scenario, options) with isolated communication (the analytical
/// network, no slowdowns, one rank per stage). Throws the InputError simulate_step would throw
/// before its replay (the same checks, in the same order). `layers`: layers' ops shared by
/// scenarios that differ only in their split (layer_ops_cache.hpp); the same bound, bit for bit.
[[nodiscard]] SimTime step_time_lower_bound(const Scenario& scenario, const StepOptions& options,
                                            LayerOpsCache* layers = nullptr);

}  // namespace ctwin::replay
