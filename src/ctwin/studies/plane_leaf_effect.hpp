#pragma once
// What a leaf failure costs a job on a dual-plane build (Alibaba HPN), for `goodput`: the leaf's
// nodes keep the other plane, at half their NICs' rate, so the job slows instead of stopping. The
// slowdown is the twin's step with the leaf down (`ctwin run --degrade leaf:0=down`) over the
// healthy step, both on the flow network (a leaf acts only on the shared fabric). Leaf 0 (plane 0, segment 0, rail 0) serves the job's first nodes; every leaf of a
// build the job fills serves as many of its nodes, so one degraded step stands for any leaf.

#include <string>

#include "ctwin/api/eval_context.hpp"
#include "ctwin/api/scenario.hpp"
#include "ctwin/fabric/cluster_spec.hpp"

namespace ctwin::api {

struct LeafDownEffect {
  std::string degrade;  ///< the --degrade term simulated, "leaf:0=down"
  double healthy_step_time_s = 0;
  double step_time_s = 0;  ///< with the leaf down
  double effect = 1;       ///< step_time_s over healthy_step_time_s, at least 1
};

/// Whether a leaf failure only slows a job on this fabric (a dual plane); on the other kinds it
/// cuts nodes off and interrupts the job.
[[nodiscard]] bool leaf_failure_slows(const fabric::ClusterSpec& cluster);

/// The slowdown of a scenario whose cluster leaf_failure_slows.
[[nodiscard]] LeafDownEffect dual_plane_leaf_effect(const Scenario& scenario, EvalContext& context);

}  // namespace ctwin::api
