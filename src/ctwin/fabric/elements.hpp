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

enum class VertexKind : std::uint8_t { kGpu, kNvSwitch, kPcieSwitch, kCpu, kNic, kLeaf, kSpine, kCore };

enum class LinkKind : std::uint8_t {
  kNvlink,     ///< GPU to NVSwitch
  kPcie,       ///< GPU or NIC to PCIe switch or root port, PCIe switch to CPU
  kCpuLink,    ///< socket to socket
  kAccess,     ///< NIC to leaf switch
  kLeafSpine,  ///< leaf to spine
  kSpineCore,  ///< spine to core
};
inline constexpr int kLinkKindCount = 6;

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
