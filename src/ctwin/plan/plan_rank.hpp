#pragma once
// Where one named split ranks in a plan, exactly and without replaying the plan (`ctwin plan
// --rank-of`, ctwin.rank_split, scripts/rank-published.py). The rank is the analytical phase's
// rank (no flow phase): 1 + the valid candidates with a larger objective, or an equal one and a
// smaller enumeration index (the plan's tie order).
//
// The named split is replayed first; its objective v is the threshold. Every other candidate
// gets its lower bound on the step time (plan/plan_bound.hpp), whose objective bound is at least
// its replayed objective: a candidate whose bound is below v, or equal to v with a larger index,
// ranks after the named split whatever its replay says, so only the others are replayed. The
// candidates whose bound cannot say whether the report accepts them (an MFU bound above 1) are
// replayed too, so that the count of valid candidates is the exhaustive plan's.
// When the named split is not valid, its rule is reported and the best candidate is found the
// way the plan finds its first (replays in order of bound until none can beat the best).

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ctwin/plan/plan.hpp"

namespace ctwin::api {

struct RankOptions {
  std::optional<std::int64_t> gpus;  ///< the scenario's when not given
  PlanObjective objective = PlanObjective::kThroughput;
  std::vector<std::string> fixes;    ///< as PlanOptions::fixes
  nlohmann::json placement;          ///< as PlanOptions::placement
  /// The split: "name=value" with the names of a plan result's "split" (tp, pp, vpp, cp, ep,
  /// schedule, pipeline_accounting, micro_batch, recompute, zero, distributed_optimizer). With
  /// the fixes they must name one candidate; names left out may take any value a single
  /// candidate leaves them (schedule and vpp are one choice: vpp=1 is 1F1B).
  std::vector<std::string> key;
  double memory_margin = kDefaultMemoryMargin;  ///< as PlanOptions::memory_margin
  unsigned jobs = 1;
  /// Called, one call at a time: phase ("bound", "analytical"), done, total.
  std::function<void(const char*, std::size_t, std::size_t)> progress;
};

/// One split's rank; the header (enumerated, survivors) counts the plan's space as evaluate_plan does.
struct SplitRank : PlanHeader {
  std::vector<std::string> key;
  /// Empty when the named split is a valid candidate; otherwise the rule that removed it (a
  /// plan rule such as "memory" or "parallel.tp", or "replay" when the replay refused it) and
  /// the rule's message for it.
  std::string not_valid_rule, not_valid;
  std::int64_t rank = 0;   ///< 1-based; 0 when not valid
  std::int64_t valid = 0;  ///< candidates the plan ranks (survivors the replay accepts)
  std::optional<PlanEntry> named;  ///< with its `why` against the best
  std::optional<PlanEntry> best;   ///< rank 1 (the named split itself when it ranks first)
  std::int64_t bounded = 0;   ///< candidates whose bound was computed
  std::int64_t replayed = 0;  ///< candidates replayed, the named one included
};

/// The rank of `options.key` in the plan of `scenario`. InputError naming --rank-of for a key
/// that is not a planner axis, a value not in the plan's space, or a key matching several
/// candidates; the plan's own errors as evaluate_plan gives them.
[[nodiscard]] SplitRank rank_split(const Scenario& scenario, EvalContext& context, const RankOptions& options);

/// {"model", ..., "key", "rank", "valid", "not_valid": null | {"rule", "message"}, "named",
///  "best" (plan_entry_json at their ranks, or null), "search": {"bounded", "replayed"}}.
[[nodiscard]] nlohmann::json split_rank_json(const SplitRank& rank);

}  // namespace ctwin::api
