#pragma once
// Paths between GPUs, as NCCL's traffic takes them:
//  - inside a node, the server's fastest path (NVLink through NVSwitch, else PCIe, through the
//    CPUs if needed);
//  - between nodes, out of the GPU's own NIC (its rail) to its switch, across the switches as
//    the fabric's Topology routes them (a fat tree climbs only as far as needed: same leaf, no
//    spine; same pod, one spine; else through a core), and down to the destination's NIC.
//    Where paths of equal cost split, ECMP picks one by a hash of (source, destination, flow
//    label, hop), so the same flow always takes the same path and different flows spread,
//    colliding as real ECMP does;
//  - with PXN (NCCL_PXN, NCCL >= 2.12), a transfer whose destination sits on another rail first
//    crosses NVLink to the local GPU on the destination's rail and leaves by that GPU's NIC,
//    so it stays on one rail and never climbs to a spine to change rails;
//  - where the Topology has no switch path between two rails (fabric.spine_groups per_rail),
//    every transfer to another rail group is relayed that way, PXN asked for or not.

#include <cstdint>
#include <utility>
#include <vector>

#include "ctwin/core/units.hpp"
#include "ctwin/fabric/elements.hpp"

namespace ctwin::fabric {

class Fabric;

/// Which part of an intra-node NVSwitch path a transfer uses. In-switch reductions (NVLS) move
/// data between a GPU and the NVSwitch only: the switch reduces or multicasts in between.
enum class SwitchLeg : std::uint8_t {
  kWhole,     ///< GPU to GPU
  kToSwitch,  ///< only the source GPU's link into the NVSwitch
  kFromSwitch ///< only the NVSwitch's link into the destination GPU
};

struct RouteOptions {
  /// Tells apart flows of one GPU pair (NCCL channels, queue pairs) for ECMP.
  std::uint64_t flow_label = 0;
  /// Rail-align cross-rail transfers over NVLink first (needs NVLink).
  bool pxn = false;
  /// Anything but kWhole needs source and destination in one node with an NVSwitch.
  SwitchLeg leg = SwitchLeg::kWhole;
};

/// Appends the links from `src` to `dst` to `out` (nothing when src == dst).
void append_route(const Fabric& fabric, GpuId src, GpuId dst, const RouteOptions& options, std::vector<LinkId>& out);

/// Appends the links from `src` to `dst` with the share of the transfer's bytes each carries:
/// under `fabric.routing: adaptive` the switch part spreads over every equal-cost path; under
/// ECMP (and inside a node) it is append_route()'s path, every link carrying all of it.
void append_spread_route(const Fabric& fabric, GpuId src, GpuId dst, const RouteOptions& options,
                         std::vector<std::pair<LinkId, double>>& out);

/// Adaptive routing on a model that moves whole flows (`flow`): how many routes a transfer from
/// `src` to `dst` is split over, in equal parts, each on its own equal-cost path. One under ECMP,
/// inside a node, between GPUs on one switch, and on kinds that do not enumerate their paths.
[[nodiscard]] int split_route_count(const Fabric& fabric, GpuId src, GpuId dst, const RouteOptions& options);

/// Appends route `index` (< `count`) of that split: append_route()'s way out and in, the switch
/// part the Topology's path `index` (fabric::Topology::append_split_switch_path). `count` is
/// split_route_count() for the same transfer, which the caller has already asked: each part of
/// a split would otherwise count the paths again.
void append_split_route(const Fabric& fabric, GpuId src, GpuId dst, const RouteOptions& options, int index, int count,
                        std::vector<LinkId>& out);

[[nodiscard]] std::vector<LinkId> route(const Fabric& fabric, GpuId src, GpuId dst, const RouteOptions& options = {});

/// Every run of `node`'s links one route can cross, as append_route() builds them, whatever the
/// options: a path between two of its GPUs, either leg of one through an NVSwitch, the way out
/// from a GPU (through a PXN relay or not) up to and including its NIC's cable to its switch, and
/// the way in from the switch to a GPU. A route's links inside one node (its NIC cables counted
/// as the node's) are always exactly one of these.
[[nodiscard]] std::vector<std::vector<LinkId>> node_route_parts(const Fabric& fabric, int node);

/// Sum of link latencies and slowest link of a path (zero for an empty path).
struct PathProperties {
  SimTime latency;
  Bandwidth bottleneck;
};
[[nodiscard]] PathProperties path_properties(const Fabric& fabric, const std::vector<LinkId>& path);

}  // namespace ctwin::fabric
