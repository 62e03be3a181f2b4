#include "ctwin/fabric/builders/tier_plan.hpp"

#include <algorithm>
#include <cmath>

#include "ctwin/core/error.hpp"
#include "ctwin/core/int_math.hpp"

namespace ctwin::fabric {
namespace {

// Smallest divisor d of `links` such that `groups` groups of links/d links fit in `ports`.
int smallest_fitting_divisor(int links, long long groups, int ports) {
  for (int d = 1; d <= links; ++d) {
    if (links % d == 0 && groups * (links / d) <= ports) return d;
  }
  return 0;
}

// Cores a plane needs for `pods` spines of `uplinks` each: the uplinks dealt in turn (TierPlan's
// wiring), so the fewest switches whose ports hold them all.
int cores_for(int uplinks, int pods, int ports) {
  return static_cast<int>(ceil_div(static_cast<long long>(uplinks) * pods, static_cast<long long>(ports)));
}

// Downlinks of a switch whose ports are split down:up = ratio:1.
int downlinks_for(int ports, double ratio) {
  return static_cast<int>(std::floor(ports * ratio / (1 + ratio) + 1e-9));
}

// Names the cluster file and the field that caps its size, not the caller's GPU count: the
// count may come from a CLI flag, a scenario's /gpus or Python, and only the caller knows which.
void throw_too_large(const ClusterSpec& spec, const TierPlan& plan) {
  const int ports = spec.fabric.switch_spec.ports;
  const long long max_gpus = plan.max_nodes * spec.server.gpus;
  throw InputError(spec.file, "/fabric/switch/ports",
                   std::to_string(static_cast<long long>(plan.nodes) * spec.server.gpus) +
                       " GPUs exceed what this cluster can build (at most " + std::to_string(max_gpus) + " GPUs with " +
                       std::to_string(ports) + "-port switches in " + std::to_string(spec.fabric.max_tiers) +
                       " tiers, /fabric/max_tiers)");
}

// Rail-grouped spines, as the DGX GB200 RA wires them: each rail group of `group` scalable
// units has its own spines, as few as take the group's leaf uplinks while keeping uplinks for
// a core tier (so 8 leaves x 18 uplinks on 64-port spines at 1:1 give 6 spines of 24 down and
// 24 up, not 3 of 48); a build of more groups per rail joins them through cores. One scalable
// unit needs no spine at all: each rail has one leaf, and traffic changes rails over NVLink.
void plan_per_rail(const ClusterSpec& spec, TierPlan& plan) {
  const FabricSpec& fabric = spec.fabric;
  const int ports = fabric.switch_spec.ports;
  const int spine_down = downlinks_for(ports, fabric.spine_oversubscription);
  const int group = fabric.leaves_per_spine_group > 0 ? fabric.leaves_per_spine_group : spine_down;
  // One rail group is allowed here (load_cluster() refuses it): replay's one-rail slices of a
  // per-rail fabric are that, with the same spine sizing.
  CTWIN_ASSERT(group <= spine_down, "load_cluster() checked the spine group's size");
  plan.per_rail = true;
  plan.rail_groups = plan.leaves_per_su;
  plan.leaves_per_pod = group;
  const long long groups_per_rail_max = fabric.max_tiers >= 3 ? std::max(1, ports / plan.rail_groups) : 1;
  plan.max_nodes = groups_per_rail_max * group * fabric.nodes_per_su;
  if (plan.nodes > plan.max_nodes) throw_too_large(spec, plan);

  const int units = ceil_div(plan.nodes, fabric.nodes_per_su);
  if (units == 1) {
    plan.tiers = 1;
    return;
  }
  plan.spines_per_pod = smallest_fitting_divisor(plan.leaf_uplinks, group, spine_down);
  CTWIN_ASSERT(plan.spines_per_pod > 0, "one link per leaf and spine fits a group of at most spine_down leaves");
  const int spine_downlinks = group * plan.links_per_leaf_spine();
  plan.spine_uplinks_kept = static_cast<int>(std::ceil(spine_downlinks / fabric.spine_oversubscription - 1e-9));
  CTWIN_ASSERT(spine_downlinks + plan.spine_uplinks_kept <= ports, "spine_down leaves room for the uplinks");
  const int groups_per_rail = ceil_div(units, group);
  plan.pods = groups_per_rail * plan.rail_groups;
  if (groups_per_rail == 1) {
    plan.tiers = 2;
    return;
  }
  plan.tiers = 3;
  plan.spine_uplinks = plan.spine_uplinks_kept;
  plan.cores_per_plane = cores_for(plan.spine_uplinks, plan.pods, ports);
  CTWIN_ASSERT(plan.cores_per_plane <= plan.spine_uplinks, "pods <= ports was checked through max_nodes");
}

}  // namespace

TierPlan plan_tiers(const ClusterSpec& spec, int nodes) {
  const FabricSpec& fabric = spec.fabric;
  const int ports = fabric.switch_spec.ports;
  const std::string& file = spec.file;
  TierPlan plan;
  plan.nodes = nodes;
  plan.rails = spec.server.nics.count;

  if (fabric.kind == FabricKind::kRailOptimized) {
    plan.leaves_per_su = plan.rails / fabric.rails_per_leaf;
    plan.leaf_downlinks = fabric.nodes_per_su * fabric.rails_per_leaf;
    plan.leaves = ceil_div(nodes, fabric.nodes_per_su) * plan.leaves_per_su;
  } else {
    plan.nodes_per_leaf = downlinks_for(ports, fabric.leaf_oversubscription) / plan.rails;
    if (plan.nodes_per_leaf == 0) {
      throw InputError(file, "/fabric/switch/ports", "a " + std::to_string(ports) + "-port leaf cannot take the " +
                                                         std::to_string(plan.rails) + " NICs of one node");
    }
    plan.leaf_downlinks = plan.nodes_per_leaf * plan.rails;
    plan.leaves = ceil_div(nodes, plan.nodes_per_leaf);
  }
  plan.leaf_uplinks = static_cast<int>(std::ceil(plan.leaf_downlinks / fabric.leaf_oversubscription - 1e-9));
  if (plan.leaf_downlinks + plan.leaf_uplinks > ports) {
    throw InputError(file, "/fabric/oversubscription/leaf",
                     "a leaf needs " + std::to_string(plan.leaf_downlinks) + " downlinks and " +
                         std::to_string(plan.leaf_uplinks) + " uplinks but has " + std::to_string(ports) + " ports");
  }
  if (fabric.spine_groups == SpineGroups::kPerRail) {
    plan_per_rail(spec, plan);
    return plan;
  }
  const long long nodes_per_leaf_group =
      fabric.kind == FabricKind::kRailOptimized ? fabric.nodes_per_su : plan.nodes_per_leaf;
  const int leaves_per_group = fabric.kind == FabricKind::kRailOptimized ? plan.leaves_per_su : 1;

  // Three-tier pod shape, also needed to state the maximum size.
  const int spine_down = downlinks_for(ports, fabric.spine_oversubscription);
  const int pod_leaves = spine_down / leaves_per_group * leaves_per_group;
  const long long max_two_tier_nodes = static_cast<long long>(ports) / leaves_per_group * nodes_per_leaf_group;
  const long long max_three_tier_nodes =
      pod_leaves == 0 ? 0 : static_cast<long long>(ports) * (pod_leaves / leaves_per_group) * nodes_per_leaf_group;
  plan.max_nodes = fabric.max_tiers >= 3 ? std::max(max_two_tier_nodes, max_three_tier_nodes) : max_two_tier_nodes;
  if (nodes > plan.max_nodes) throw_too_large(spec, plan);

  if (plan.leaves == 1) {
    plan.tiers = 1;
    plan.leaves_per_pod = 1;
    return plan;
  }
  if (plan.leaves <= ports) {
    plan.tiers = 2;
    plan.leaves_per_pod = plan.leaves;
    plan.spines_per_pod = smallest_fitting_divisor(plan.leaf_uplinks, plan.leaves, ports);
    CTWIN_ASSERT(plan.spines_per_pod > 0, "leaves <= ports always fits with one link per leaf and spine");
    return plan;
  }
  plan.tiers = 3;
  plan.leaves_per_pod = pod_leaves;
  plan.spines_per_pod = plan.leaf_uplinks;
  plan.spine_uplinks = static_cast<int>(std::ceil(pod_leaves / fabric.spine_oversubscription - 1e-9));
  plan.pods = ceil_div(plan.leaves, pod_leaves);
  plan.cores_per_plane = cores_for(plan.spine_uplinks, plan.pods, ports);
  CTWIN_ASSERT(plan.cores_per_plane <= plan.spine_uplinks, "pods <= ports was checked through max_nodes");
  return plan;
}

int leaf_of(const ClusterSpec& spec, const TierPlan& plan, int node, int nic) {
  if (spec.fabric.kind == FabricKind::kRailOptimized) {
    return node / spec.fabric.nodes_per_su * plan.leaves_per_su + nic / spec.fabric.rails_per_leaf;
  }
  return node / plan.nodes_per_leaf;
}

}  // namespace ctwin::fabric
