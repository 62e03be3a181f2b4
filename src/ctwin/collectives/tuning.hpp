#pragma once
// What a protocol costs on top of moving bytes: NCCL's own tuning model (src/graph/tuning.cc,
// read at NVIDIA/nccl commit 01afd20, the v2.8-era tables) gives, per algorithm and protocol,
// a base latency per collective, a latency per hop by hop class (NVLink, PCIe, network), and
// the share of link bandwidth the protocol delivers as payload (LL moves 8-byte lines holding
// 4 bytes of data and NCCL models it at 1/4 of the link for rings; LL128 keeps 120 of every 128
// bytes and NCCL models 0.92). These are the shipped defaults; `ctwin calibrate` replaces them
// with values fitted to a cluster's own nccl-tests logs.

#include "ctwin/collectives/collective.hpp"
#include "ctwin/core/units.hpp"

namespace ctwin::collectives {

enum class HopClass { kNvlink, kPcie, kNet };

struct ProtocolCost {
  SimTime base_latency;   ///< once per collective
  SimTime hop_latency;    ///< per pipelined step over one hop of the given class
  double bandwidth_share = 1;  ///< payload bytes per byte on the wire, (0, 1]
};

struct CollectiveTuning {
  /// Multiplies every hop latency and every bandwidth share; calibration moves these first.
  double latency_scale = 1;
  double bandwidth_scale = 1;
  /// Channels per collective (NCCL's nChannels); 0 picks one per NIC rail, or per GPU on one node.
  int channels = 0;

  [[nodiscard]] ProtocolCost cost(Algorithm algorithm, Protocol protocol, Op op, HopClass hop, bool multi_node) const;
};

}  // namespace ctwin::collectives
