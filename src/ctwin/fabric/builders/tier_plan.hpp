#pragma once
// How many switches of each tier a build of N nodes needs and how they are wired. The wiring is
// regular so that routing is arithmetic, not table lookups:
//   leaf l (in pod l / leaves_per_pod) uplink k  -> spine (pod * spines_per_pod + k % spines_per_pod)
//   spine s (position j in pod p)     uplink k  -> core  (j * cores_per_plane + (p * spine_uplinks + k) % cores_per_plane)
// A plane's spine uplinks are dealt to its cores in turn, pod after pod, so that as few cores as
// hold them do (160 for 10 pods of 32 uplinks on 64-port cores, not the 256 that an even
// number of links per spine and core needs): a spine then has one link more to some cores.
// Two tiers while the leaves fit under one set of spines (leaves <= switch ports); then pods of
// leaves under their own spines, joined by planes of cores (a three-tier folded Clos).
// With per-rail spine groups (FabricSpec::spine_groups) a pod is one rail group's leaves of
// `leaves_per_pod` scalable units: pods are numbered block-major, rail group minor, and the
// cores join spine j of every pod, of every rail.

#include <string>

#include "ctwin/fabric/cluster_spec.hpp"

namespace ctwin::fabric {

struct TierPlan {
  int tiers = 1;  ///< 1: one leaf, 2: leaf/spine, 3: leaf/spine/core
  int nodes = 0;
  int rails = 0;  ///< NICs per node

  int leaves = 0;
  int leaf_downlinks = 0;  ///< per leaf, when full
  int leaf_uplinks = 0;
  int leaves_per_su = 0;   ///< rail-optimized
  int nodes_per_leaf = 0;  ///< top-of-rack

  int pods = 1;
  int leaves_per_pod = 0;  ///< per rail: the group's size, even where the build fills fewer
  bool per_rail = false;   ///< pods split by rail group (FabricSpec::SpineGroups::kPerRail)
  int rail_groups = 1;     ///< per rail: leaves per scalable unit, one per rail group
  int spines_per_pod = 0;
  int spine_uplinks = 0;  ///< per spine, three tiers only
  int spine_uplinks_kept = 0;  ///< per rail: each spine's ports kept for cores, wired or not
  int cores_per_plane = 0;

  long long max_nodes = 0;  ///< the largest build these switches can make within max_tiers

  [[nodiscard]] int spines() const { return pods * spines_per_pod; }
  [[nodiscard]] int cores() const { return spines_per_pod * cores_per_plane; }
  [[nodiscard]] int pod_of_leaf(int leaf) const {
    if (!per_rail) return leaf / leaves_per_pod;
    return leaf / rail_groups / leaves_per_pod * rail_groups + leaf % rail_groups;
  }

  /// Parallel links between a leaf and each spine of its pod.
  [[nodiscard]] int links_per_leaf_spine() const { return leaf_uplinks / spines_per_pod; }
  /// The core of its plane that uplink k of a spine in pod `pod` reaches.
  [[nodiscard]] int core_of_uplink(int pod, int k) const { return (pod * spine_uplinks + k) % cores_per_plane; }
  /// A spine of pod `pod` reaches core c of its plane by its uplinks first, first + cores_per_plane, ...
  [[nodiscard]] int first_uplink_to_core(int pod, int core) const {
    return ((core - pod * spine_uplinks) % cores_per_plane + cores_per_plane) % cores_per_plane;
  }
  /// ... of which there are this many (every spine reaches every core of its plane).
  [[nodiscard]] int uplinks_to_core(int pod, int core) const {
    return (spine_uplinks - first_uplink_to_core(pod, core) + cores_per_plane - 1) / cores_per_plane;
  }
};

/// Plans the switch tiers for `nodes` nodes. Throws InputError naming the topology file and
/// /fabric/switch/ports when the build cannot hold them, or the field that makes the plan impossible.
[[nodiscard]] TierPlan plan_tiers(const ClusterSpec& spec, int nodes);

/// The leaf that NIC `nic` of node `node` plugs into.
[[nodiscard]] int leaf_of(const ClusterSpec& spec, const TierPlan& plan, int node, int nic);

}  // namespace ctwin::fabric
