#pragma once
// What an architect sizing a build asks first: how many of everything, how much bandwidth
// crosses the middle, how oversubscribed each tier is and how many hops GPUs are apart.

#include <string>
#include <vector>

#include "ctwin/core/units.hpp"
#include "ctwin/fabric/elements.hpp"

namespace ctwin::fabric {

class Fabric;

struct SwitchTier {
  std::string tier;  ///< "leaf", "spine", "core"
  int switches = 0;
  long long ports_used = 0;
  long long ports_total = 0;
  double oversubscription = 1;  ///< downlink : uplink bandwidth (1 for the top tier)
};

/// Cables of one kind and speed; transceivers assume optics at every switch and NIC port.
struct CableGroup {
  LinkKind kind = LinkKind::kAccess;
  Bandwidth bandwidth;
  long long cables = 0;
  long long transceivers = 0;
  /// Cables sharing one switch port: 2 for a dual plane's 200G port cables on 400G ports (breakouts).
  int links_per_switch_port = 1;
};

/// One representative GPU pair of a placement class and the path between them.
struct HopCount {
  std::string pair_class;  ///< "same node", "same rail", "cross rail", "cross rail (PXN)", "cross SU", "cross pod"
  GpuId from = 0;
  GpuId to = 0;
  int links = 0;
  int switches = 0;  ///< NVSwitch, PCIe and fabric switches crossed
  int fewest_links = 0;  ///< breadth-first distance on the graph, for comparison with `links`
  SimTime latency;     ///< sum of link latencies
  Bandwidth bottleneck;  ///< slowest link on the path
};

struct FabricSummary {
  std::string name;
  int gpus = 0;
  int nodes = 0;
  int gpus_per_node = 0;
  int scalable_units = 0;  ///< rail-optimized builds; 0 otherwise
  int pods = 0;
  /// Per-rail spine groups (fabric.spine_groups): rail groups per scalable unit, each with its
  /// own spines; 0 when every leaf shares the spines.
  int rail_spine_groups = 0;
  int tiers = 0;
  std::vector<SwitchTier> switch_tiers;
  std::vector<CableGroup> cables;  ///< scale-out cables first, then in-server links
  long long fabric_cables = 0;
  long long transceivers = 0;
  Bandwidth nvlink_per_gpu;  ///< zero without NVLink
  Bandwidth injection_per_gpu;  ///< NIC bandwidth per GPU
  Bandwidth bisection;  ///< scale-out bisection bandwidth, per direction
  std::vector<HopCount> hops;
};

[[nodiscard]] FabricSummary summarize(const Fabric& fabric);

}  // namespace ctwin::fabric
