#pragma once
// The vocabulary of a built fabric: vertices (devices) and directed links between them.

#include <cstdint>

#include "ctwin/core/units.hpp"

namespace ctwin::fabric {

using VertexId = std::uint32_t;
/// Links come in pairs, one per direction of a cable: `id ^ 1` is the reverse of `id`.
using LinkId = std::uint32_t;
/// A GPU's rank in the build: node-major, `node * gpus_per_node + local_index`.
using GpuId = std::int32_t;

enum class VertexKind : std::uint8_t { kGpu, kNvSwitch, kPcieSwitch, kCpu, kNic, kLeaf, kSpine, kCore, kRouter, kBorder };

/// A switch of the scale-out fabric (a Topology's), not of a server.
[[nodiscard]] constexpr bool is_fabric_switch(VertexKind kind) { return kind >= VertexKind::kLeaf; }

enum class LinkKind : std::uint8_t {
  kNvlink,     ///< GPU to NVSwitch
  kPcie,       ///< GPU or NIC to PCIe switch or root port, PCIe switch to CPU
  kCpuLink,    ///< socket to socket
  kAccess,     ///< NIC to leaf switch
  kLeafSpine,  ///< leaf to spine
  kSpineCore,  ///< spine to core
  kLocal,      ///< dragonfly: router to router inside a group
  kGlobal,     ///< dragonfly: router to router between groups
  kBorder,     ///< sites: access switch to its site's border switch
  kDci,        ///< sites: data-centre interconnect, border switch to border switch
};
inline constexpr int kLinkKindCount = 10;

/// A cable of the scale-out fabric: a NIC's or a switch-to-switch one.
[[nodiscard]] constexpr bool is_scale_out(LinkKind kind) { return kind >= LinkKind::kAccess; }
/// A switch-to-switch cable.
[[nodiscard]] constexpr bool is_switch_cable(LinkKind kind) { return kind > LinkKind::kAccess; }

struct Link {
  VertexId from = 0;
  VertexId to = 0;
  Bandwidth bandwidth;  ///< raw rate per direction
  SimTime latency;
  LinkKind kind = LinkKind::kNvlink;
  double efficiency = 1;  ///< payload share of `bandwidth` traffic achieves

  /// What the network models carry: payload bytes per second.
  [[nodiscard]] Bandwidth achieved() const { return bandwidth * efficiency; }
};

[[nodiscard]] constexpr LinkId reverse(LinkId id) { return id ^ 1U; }

[[nodiscard]] const char* to_string(VertexKind kind);
[[nodiscard]] const char* to_string(LinkKind kind);

}  // namespace ctwin::fabric
