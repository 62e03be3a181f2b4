#pragma once
// `ctwin plan --placement` (docs/plan.md, "Placement"): every candidate runs on the placement the
// user names, as `ctwin run --placement` would put it (replay/node_placement.hpp). The placement
// is a scenario field, so the bound, the analytical replay and the flow replay all see it through
// replay::place_ranks; what the planner adds is the rule that drops the candidates it cannot hold
// (an explicit node or GPU list shorter than a candidate's ranks, a build too small for a
// domain-aligned block) and the header that says where the plan ran.

#include <nlohmann/json.hpp>

#include "ctwin/api/scenario.hpp"
#include "ctwin/plan/plan_space.hpp"
#include "ctwin/replay/placement.hpp"
#include "ctwin/replay/scenario.hpp"

namespace ctwin::api {

/// `scenario` with its "placement" replaced by `placement` (a policy name or the scenario's
/// placement object, as --placement takes it); `scenario` itself when `placement` is null.
[[nodiscard]] Scenario with_plan_placement(const Scenario& scenario, const nlohmann::json& placement);

/// The placement a plan ran on, as the scenario's "placement" would write it: null when the
/// scenario names none (the default, so that such plans keep their bytes), a name, or an object.
[[nodiscard]] nlohmann::json plan_placement_json(const replay::PlacementSpec& spec);

/// Drops the survivors `base`'s placement cannot hold, counted under the rule "placement" with the
/// first one's message, and numbers the rest again in enumeration order. Nothing is tried when the
/// placement is the default one (it holds every split), so a plan without one costs nothing more.
void drop_unplaceable(PlanSpace& space, const replay::Scenario& base);

}  // namespace ctwin::api
