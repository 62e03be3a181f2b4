#include "ctwin/studies/plane_leaf_effect.hpp"

#include <algorithm>

#include "ctwin/api/evaluate.hpp"

namespace ctwin::api {

bool leaf_failure_slows(const fabric::ClusterSpec& cluster) { return cluster.fabric.kind_name == "dual_plane"; }

LeafDownEffect dual_plane_leaf_effect(const Scenario& scenario, EvalContext& context) {
  // A leaf term acts on the shared flow fabric only (api/step_degradation.cpp): both steps there,
  // whatever network the scenario names, so that the ratio compares like with like.
  const Scenario on_flow = scenario.with("network", "flow");
  const StepResult healthy = evaluate(on_flow, context);
  LeafDownEffect e;
  e.degrade = "leaf:0=down";
  e.healthy_step_time_s = healthy.step.report.step_time_s;
  StepQuery query;
  query.degrade = {e.degrade};
  query.degrade_origin = "goodput (dual-plane leaf failure)";
  e.step_time_s = evaluate(on_flow, context, query).step.report.step_time_s;
  // Losing a plane cannot speed the step up; guard the ratio against rounding of equal times.
  e.effect = std::max(1.0, e.step_time_s / e.healthy_step_time_s);
  return e;
}

}  // namespace ctwin::api
