#pragma once
// Links that every route crosses together or not at all carry the same flows at every instant:
// a NIC's PCIe link and its cable to the leaf (the NIC has nothing else), and on servers whose
// own traffic goes over NVLink, a GPU's PCIe link to its switch and the switch's link to the
// GPU's NIC. A contention model needs only the tightest link of such a set: the others hold
// the same flows with at least as much capacity, so they never limit anyone, and their bytes
// and the flows' latency through them follow from the set. On a rail-optimized build this
// leaves 6 of a cross-pod route's 10 links to track.
//
// Sets are found from node_route_parts(): two links of a node are in lockstep when they appear
// in exactly the same parts, as often. Every node is a copy of the server, so node 0's routes
// decide the sets for all of them; each node's own slowest link stands for its set (a degraded
// NIC, or a node group's own server at other rates, makes nodes differ). Links above the leaves are always their own.

#include <vector>

#include "ctwin/fabric/elements.hpp"

namespace ctwin::fabric {

class Fabric;

/// For every link, the link that stands for its lockstep set: the set's slowest, the lowest id
/// among equals; a link in no set stands for itself.
[[nodiscard]] std::vector<LinkId> lockstep_representatives(const Fabric& fabric);

}  // namespace ctwin::fabric
