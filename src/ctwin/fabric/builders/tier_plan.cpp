#include "ctwin/fabric/builders/tier_plan.hpp"

#include <cmath>

#include "ctwin/core/error.hpp"

namespace ctwin::fabric {
namespace {

int ceil_div(long long a, long long b) { return static_cast<int>((a + b - 1) / b); }

// Smallest divisor d of `links` such that `groups` groups of links/d links fit in `ports`.
int smallest_fitting_divisor(int links, long long groups, int ports) {
  for (int d = 1; d <= links; ++d) {
    if (links % d == 0 && groups * (links / d) <= ports) return d;
  }
  return 0;
}

// Downlinks of a switch whose ports are split down:up = ratio:1.
int downlinks_for(int ports, double ratio) {
  return static_cast<int>(std::floor(ports * ratio / (1 + ratio) + 1e-9));
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
  if (nodes > plan.max_nodes) {
    const long long max_gpus = plan.max_nodes * spec.server.gpus;
    throw InputError("--gpus", "", std::to_string(static_cast<long long>(nodes) * spec.server.gpus) +
                                       " GPUs exceed what " + file + " can build (at most " + std::to_string(max_gpus) +
                                       " GPUs with " + std::to_string(ports) + "-port switches in " +
                                       std::to_string(fabric.max_tiers) + " tiers; see /fabric/switch/ports)");
  }

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
  plan.cores_per_plane = smallest_fitting_divisor(plan.spine_uplinks, plan.pods, ports);
  CTWIN_ASSERT(plan.cores_per_plane > 0, "pods <= ports was checked through max_nodes");
  return plan;
}

int leaf_of(const ClusterSpec& spec, const TierPlan& plan, int node, int nic) {
  if (spec.fabric.kind == FabricKind::kRailOptimized) {
    return node / spec.fabric.nodes_per_su * plan.leaves_per_su + nic / spec.fabric.rails_per_leaf;
  }
  return node / plan.nodes_per_leaf;
}

}  // namespace ctwin::fabric
