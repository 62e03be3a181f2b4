#pragma once
// What a protocol costs on top of moving bytes, after NCCL's own tuning model
// (src/graph/tuning.cc, NVIDIA/nccl master at 5067397c, the model of the 2.2x releases the
// validation logs were taken with):
//  - a base latency per collective and a latency per pipelined step by hop class (NVLink,
//    PCIe, network), per algorithm family and protocol (baseLatencies, hwLatencies);
//  - the share of link bandwidth a protocol delivers as payload: LL 1/2 on rings (8-byte
//    lines, 4 of data), LL128 0.92 (120 of every 128 bytes), trees 0.92, tree LL 0.92/3.8,
//    tree LL128 7/9 on one node; NVLS legs the architecture's nvlsEfficiency (Hopper 0.85,
//    Blackwell 0.74) times (channels − 1)/channels, with NVLS's own channel count
//    (src/transport/nvls.cc: 16 on Hopper, 24 on one Blackwell NVLink domain, 32 across);
//  - ceilings on bus bandwidth: LL at llMaxBws, LL128 and trees at a per-channel maximum
//    times the channels (perChMaxRingLL128Bws, perChMaxTreeBws, perChMaxTreeLL128Bws,
//    perChMaxNVLSTreeBws), by GPU architecture and node count (1, 2, more).
// NVLS and PAT run with the Simple protocol only; PAT (all_gather and reduce_scatter with one GPU
// per node) pays 8 us, 2.8 us per rank and a third and a half of a network latency per round, at
// 0.75 of the bus bandwidth. These are the shipped defaults; `ctwin calibrate`
// scales them to fit a cluster's own nccl-tests logs.

#include <array>
#include <string>

#include "ctwin/collectives/collective.hpp"
#include "ctwin/core/units.hpp"

namespace ctwin::collectives {

enum class HopClass { kNvlink, kPcie, kNet };

/// NCCL's compute-capability buckets for its tuning tables.
enum class GpuArch { kVolta, kAmpere, kHopper, kBlackwell };

/// NCCL's bucket for a GPU profile's "arch" (compute/gpu_spec.hpp): Ada shares Ampere's (NCCL
/// buckets SM80 to SM89 together). InputError naming `source` (the topology) and its server's GPU
/// `gpu` when the family is empty (no profile resolved) or has no NCCL tables (cdna3: RCCL's own
/// tuning is not modelled).
[[nodiscard]] GpuArch nccl_arch_of(const std::string& family, const std::string& gpu, const std::string& source);

/// Where a collective runs, as far as its costs are concerned.
struct CostContext {
  Algorithm algorithm = Algorithm::kRing;
  Op op = Op::kAllReduce;
  int ranks = 2;
  int nodes = 1;
  int channels = 1;
  GpuArch arch = GpuArch::kHopper;
};

struct ProtocolCost {
  bool supported = true;       ///< NCCL runs this algorithm with this protocol
  SimTime base_latency;        ///< once per collective
  SimTime hop_latency;         ///< per pipelined step over one hop of the given class
  double bandwidth_share = 1;  ///< payload bytes per byte on the wire, (0, 1]
  double switch_share = 1;     ///< the same for legs into and out of an NVSwitch (NVLS)
  /// NCCL's ceiling on its bus bandwidth for this algorithm and protocol; 0 = none.
  double max_bus_GBps = 0;
  /// Bus bytes per byte of the collective in NCCL's bookkeeping (ring nsteps/n, tree 2):
  /// the ceiling bounds size × this / time.
  double bus_bytes_per_byte = 1;
};

/// The chunk a pipelined algorithm moves per channel and hop, as NCCL sizes it for a collective
/// of `size` bytes (src/enqueue.cc calcCollChunking, master 5067397c): a buffer step of the
/// protocol (Simple 4 MiB / 8 steps = 512 KiB; LL 64 KiB steps carrying 32 KiB; LL128 614,400-byte
/// steps carrying 15/16), trees' LL128 chunks halved while the collective is small against
/// (1 + log2 nodes + ppn/10)·64/ppn chunks per channel, NVLS chunks of NCCL_NVLS_CHUNKSIZE
/// (128 KiB) shrunk for small sizes, NVLS-tree chunks capped at 64 KiB from 4 nodes on.
/// Rings are not pipelined this way; they get 0.
[[nodiscard]] Bytes pipeline_chunk(const CostContext& where, Protocol protocol, Bytes size);

struct CollectiveTuning {
  /// Calibration's handles. Per protocol (LL, LL128, Simple): multiplies its latencies.
  std::array<double, 3> latency_scale{1, 1, 1};
  /// Multiply LL's and LL128's payload shares and ceilings; Simple moves whole links, so
  /// its rate is the links' achieved rate (their efficiency) and has no handle here.
  double ll_share_scale = 1;
  double ll128_share_scale = 1;
  /// Multiplies NVLS's efficiency.
  double nvls_scale = 1;
  /// Channels per collective (NCCL's nChannels); 0 picks one per NIC rail, or per GPU on one node.
  int channels = 0;

  [[nodiscard]] ProtocolCost cost(const CostContext& where, Protocol protocol, HopClass hop) const;
};

}  // namespace ctwin::collectives
