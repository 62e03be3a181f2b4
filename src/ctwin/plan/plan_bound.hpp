#pragma once
// A planner's candidate before its replay: a lower bound on its analytical step time
// (replay/step_bound.hpp) and the best tokens/s and MFU that bound allows. The plan replays
// candidates in order of that best, and stops once the next one's best is below the objective
// of its max(top, flow_top)-th best replayed result: none of the rest can rank among them, so
// the printed ranking is the exhaustive one (plan/plan.cpp; oracle: plan_bound_test.cpp).

#include <cstddef>
#include <string>

#include "ctwin/api/eval_context.hpp"
#include "ctwin/core/units.hpp"
#include "ctwin/replay/layer_ops_cache.hpp"
#include "ctwin/replay/scenario.hpp"

namespace ctwin::api {

/// Candidates replayed between two looks at the best so far, by the plan's bounded phase and by
/// one split's rank: a constant, so which candidates are replayed (and the counts printed) does
/// not depend on the thread count.
inline constexpr std::size_t kBoundedReplayBatch = 16;

struct CandidateBound {
  SimTime step_time;       ///< ≤ the analytical replay's step time
  double tokens_per_s = 0;  ///< ≥ the replay's (the report's formula at the bound)
  double mfu = 0;           ///< ≥ the replay's
};

/// The bound of `scenario` (a candidate: a resolved base with its split, analytical network).
/// Throws the InputError the replay would throw before its report (the step's limits, what the
/// operation graph does not model). `layers`: one cache for the candidates of one base
/// (replay/layer_ops_cache.hpp): the same bound, bit for bit, sooner.
[[nodiscard]] CandidateBound bound_candidate(const replay::Scenario& scenario, EvalContext& context,
                                             replay::LayerOpsCache* layers = nullptr);

enum class PlanObjective;  // plan/plan.hpp

/// A candidate's place in the bounded order, as the plan and one split's rank both use it.
struct ObjectiveBound {
  std::string invalid;  ///< the bound's InputError: the candidate cannot run
  double best = 0;      ///< the objective's upper bound
  bool replay = false;  ///< the report may refuse it (an MFU bound above 1): replayed whatever its bound
};

/// `split` on the resolved `base`, bounded on the analytical network, for `objective`.
[[nodiscard]] ObjectiveBound bound_objective(const replay::Scenario& base, const workload::ParallelConfig& split,
                                             PlanObjective objective, EvalContext& context,
                                             replay::LayerOpsCache* layers = nullptr);

}  // namespace ctwin::api
