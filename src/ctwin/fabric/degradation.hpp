#pragma once
// Degraded parts of a built fabric, each a capacity factor on links: a NIC running at a share of
// its rate (its cable to the leaf, both directions), one switch-to-switch cable at a share, a
// leaf with some of its uplinks down (ECMP rehashes over the survivors, so each uplink's share
// of the leaf's traffic grows: modelled as every uplink at the surviving share), and a GPU
// computing at a share of its speed (no fabric effect; the compute tests and the training step
// read it). Written as `ctwin run --degrade` writes a slow GPU:
//   gpu:RANK=SPEED   nic:RANK=SHARE   link:NAME=SHARE   leaf:ID=uplinks:SHARE   leaf:ID=down
// `leaf:ID=down` loses a whole leaf where its nodes keep another way out (a dual plane's other
// leaf): its cables at the floor share, which the dual plane's routing treats as lost.
// RANK is a GPU of the build (node-major); a NIC is named by a GPU it serves. NAME is
// nN.nicR (node N's NIC R to its leaf), leafL.upK (leaf L's uplink K), spineS.upK (spine S's
// uplink K to a core).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ctwin/fabric/fabric.hpp"

namespace ctwin::fabric {

enum class PartKind { kGpu, kNic, kLink, kLeafUplinks, kLeafLost };

/// A part and the share of its nominal rate it runs at.
struct Degradation {
  PartKind kind = PartKind::kGpu;
  int index = 0;      ///< GPU rank (gpu, nic), link id of the cable's even direction (link), leaf (leaf)
  double factor = 1;  ///< in (0, 1]
};

/// Parses one term. InputError naming `flag` and quoting the term for an unknown part kind, a
/// part the build does not have, or a share outside (0, 1].
[[nodiscard]] Degradation parse_degradation(const std::string& text, const std::string& flag, const Fabric& fabric);

/// "gpu:12", "nic:12", "link:leaf3.up5", "leaf:3": the part, as parse_degradation reads it.
[[nodiscard]] std::string part_name(const Fabric& fabric, PartKind kind, int index);
/// The term that parses back to `degradation`, e.g. "leaf:3=uplinks:0.5".
[[nodiscard]] std::string term(const Fabric& fabric, const Degradation& degradation);

/// The links (both directions) whose capacity the part scales; none for a GPU.
[[nodiscard]] std::vector<LinkId> part_links(const Fabric& fabric, PartKind kind, int index);

/// The name of a network cable (NIC to leaf, leaf to spine, spine to core) in link:NAME; empty
/// for links inside a node.
[[nodiscard]] std::string cable_name(const Fabric& fabric, LinkId link);

/// The cable named `name` as link:NAME takes it (nN.nicR or the topology's forms): its even
/// direction (from the lower tier up). Empty, with `problem` saying why, for no such cable.
[[nodiscard]] std::optional<LinkId> find_named_cable(const Fabric& fabric, std::string_view name, std::string& problem);

/// Scales the part's links. A GPU changes nothing here.
void apply_degradation(Fabric& fabric, const Degradation& degradation);

}  // namespace ctwin::fabric
