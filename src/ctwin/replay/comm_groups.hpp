#pragma once
// Times of the collectives one rank takes part in, per parallel group, from the communication
// twin (collectives::predict_collective) on a fabric shaped like the group.
//
// Placement: Megatron-LM's default rank order "tp-cp-ep-dp-pp" (parallel_state.py): the global
// rank is tp + TP·(cp + CP·(dp + DP·pp)), so consecutive members of a group are `stride` GPUs
// apart: TP 1, CP TP, DP TP·CP, PP TP·CP·DP. Nodes are filled in order.
//
// The fabric a group's collective is predicted on:
//   - a group that fits in one node (stride·size ≤ GPUs per node): that many consecutive GPUs of
//     the real server (NVSwitch servers connect every GPU pair alike, so the stride does not matter);
//   - an all-to-all over consecutive ranks (stride 1: the EP group of MoE parallel folding with
//     expert_tp 1) that spans nodes: the first `size` GPUs of the real cluster, exactly where its
//     members are. Every member talks to every other, so the share that stays on NVLink inside a
//     node (7 of 63 peers for EP 64 on 8-GPU nodes) and the NICs it does not need matter; the
//     rail slice below would send all of it over one NIC per member;
//   - otherwise one GPU per node across `size` nodes: the cluster with a one-GPU, one-NIC server
//     (a rail's slice of a rail-optimized fabric). Every local rank of a node runs the same
//     collective at the same time on its own rail, and rails do not share leaves, so one slice
//     stands for all of them. Approximations: on a top-of-rack fabric the node's NICs share a
//     leaf and that sharing is missed; a group with several members per node that still spans
//     nodes (e.g. DP with TP·CP = 4 on 8-GPU nodes) is treated as one member per node, which
//     ignores its NVLink legs (pessimistic); concurrent collectives of different groups (TP beside
//     DP) do not share one fabric simulation.
// Results are cached per (op, group shape, size, element bytes).

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <tuple>

#include "ctwin/collectives/collective.hpp"
#include "ctwin/core/units.hpp"
#include "ctwin/fabric/cluster_spec.hpp"
#include "ctwin/fabric/fabric.hpp"

namespace ctwin::replay {

struct GroupShape {
  std::int64_t size = 1;
  std::int64_t stride = 1;  ///< GPUs between consecutive members
  friend auto operator<=>(const GroupShape&, const GroupShape&) = default;
};

class CollectiveTimes {
 public:
  /// `free` makes every collective take no time (the oracle tests' zero-cost communication).
  CollectiveTimes(fabric::ClusterSpec cluster, std::string network, bool free = false);
  ~CollectiveTimes();
  CollectiveTimes(CollectiveTimes&&) noexcept;

  /// Time of `op` over `group`; `size` as nccl-tests counts it (the whole buffer of all_gather's
  /// output, reduce_scatter's input; per rank for sendrecv). Zero for a group of one.
  [[nodiscard]] SimTime time(collectives::Op op, GroupShape group, Bytes size, int element_bytes);
  /// Distinct predictions made (cache misses), for reports and tests.
  [[nodiscard]] std::int64_t predictions() const { return predictions_; }

 private:
  const fabric::Fabric& fabric_for(GroupShape group, collectives::Op op);

  fabric::ClusterSpec cluster_;
  fabric::ClusterSpec slice_;  ///< one GPU and one NIC per node
  std::string network_;
  bool free_ = false;
  std::int64_t predictions_ = 0;
  std::map<std::pair<bool, std::int64_t>, std::unique_ptr<fabric::Fabric>> fabrics_;
  std::map<std::tuple<int, GroupShape, std::int64_t, int>, SimTime> cache_;
};

}  // namespace ctwin::replay
