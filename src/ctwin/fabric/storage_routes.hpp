#pragma once
// Where a shared storage tier attached to the compute fabric (storage attach compute_fabric)
// enters it, for the flow model's storage reads (replay/storage_reads.hpp, docs/io.md).
//
// The build files say how many storage servers there are, not which switch ports they use, so
// ctwin takes one documented layout: the servers sit on a storage leaf group of their own,
// cabled to the fabric's top switch tier, its uplinks never the bottleneck (each server's port,
// and the tier's aggregate, are links of their own in the flow model). A read therefore enters
// the compute fabric at a top switch, picked by ECMP on the server's label, and descends as
// inter-node traffic does: top switch, the reader's leaf, its NIC, the GPU behind that NIC. It
// shares those downlinks, the NIC and the leaf with the step's collectives. In a build whose
// nodes all hang off one leaf per rail, the top tier is that leaf.

#include <cstdint>
#include <vector>

#include "ctwin/fabric/elements.hpp"

namespace ctwin::fabric {

class Fabric;

/// The links a read takes inside `fabric` from the top switch tier down to NIC `nic` of `node`
/// and the GPU it serves; `label` (the server's index) spreads servers over equal-cost top
/// switches. A one-node build has no switch above the node: the NIC's access cable alone.
[[nodiscard]] std::vector<LinkId> storage_read_route(const Fabric& fabric, int node, int nic, std::uint64_t label);

}  // namespace ctwin::fabric
