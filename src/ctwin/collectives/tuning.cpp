#include "ctwin/collectives/tuning.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

#include "ctwin/core/error.hpp"

namespace ctwin::collectives {
namespace {

// NCCL tuning.cc tables, microseconds and GB/s. Protocol index: LL, LL128, Simple.
// Architecture index: Volta, Ampere, Hopper, Blackwell. Node index: 1, 2, more nodes.
enum Family { kTreeFamily, kRingFamily, kNvlsFamily, kNvlsTreeFamily, kPatFamily };
constexpr double kBaseLatency[5][3] = {{6.8, 14.0, 8.4}, {6.6, 14.0, 8.4}, {0, 0, 0}, {0, 0, 0}, {8.0, 8.0, 8.0}};
constexpr double kHopLatency[3][5][3] = {
    /* NVLink */ {{.6, 1.25, 4.0}, {.6, 1.9, 3.4}, {0, 0, 25}, {0, 0, 25}, {0, 0, 4.0}},
    /* PCIe   */ {{1.0, 1.9, 4.0}, {1.0, 2.5, 5.7}, {0, 0, 0}, {0, 0, 0}, {0, 0, 4.0}},
    /* net    */ {{5.0, 8.5, 14}, {2.7, 4.0, 14.0}, {0, 0, 18}, {0, 0, 20.9}, {0, 0, 14}}};
// LL ceilings: one node by GPU architecture; across nodes NCCL indexes by CPU vendor (Intel
// row used here: 39 GB/s on two nodes, 20.4 beyond).
constexpr double kLlMaxOneNode[4] = {39.0, 87.7, 141.0, 282.0};
constexpr double kLlMaxMultiNode[2] = {39.0, 20.4};
constexpr double kPerChannelRingLl128[4] = {20.0, 20.0, 36.7, 40.0};
constexpr double kPerChannelTreeLl128[4][3] = {{20, 20, 20}, {20, 20, 20}, {36.7, 36.7, 29.0}, {55.6, 31.67, 20.0}};
constexpr double kPerChannelTree[4][3] = {{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {38.7, 41.4, 36.0}, {70.0, 42.8, 24.0}};
constexpr double kPerChannelNvlsTree[4][3] = {{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {0, 57.7, 45.5}, {0, 96.0, 80.0}};
constexpr double kNvlsEfficiency[4] = {0, 0, 0.85, 0.74};

// NVLS runs its own channels, not the ring's (NVLS_NCHANNELS_SM90 / _SM100 / _SM100_NVL).
double nvls_channels(GpuArch arch, int nodes) {
  if (arch == GpuArch::kBlackwell) return nodes > 1 ? 32 : 24;
  return 16;
}

int protocol_index(Protocol protocol) {
  switch (protocol) {
    case Protocol::kLL:
      return 0;
    case Protocol::kLL128:
      return 1;
    case Protocol::kSimple:
      return 2;
    case Protocol::kAuto:
      break;
  }
  throw InternalError("a concrete protocol is needed here");
}

// NCCL has no halving-doubling: it pays its latencies like a pipelined tree (log-depth
// exchanges) and moves its bytes like a ring (each step a full-rate point-to-point send), so
// it takes the tree's latency figures and the ring's protocol shares and ceilings. Direct
// point-to-point sends move one step per hop like a ring.
Family latency_family_of(Algorithm algorithm) {
  switch (algorithm) {
    case Algorithm::kTree:
    case Algorithm::kHalvingDoubling:
      return kTreeFamily;
    case Algorithm::kNvls:
      return kNvlsFamily;
    case Algorithm::kNvlsTree:
      return kNvlsTreeFamily;
    case Algorithm::kPat:
      return kPatFamily;
    default:
      return kRingFamily;
  }
}

// NCCL's nsteps: the bus bytes a ring moves per byte of the collective, times n.
double ring_steps(Op op, int ranks) {
  switch (op) {
    case Op::kAllReduce:
      return 2.0 * (ranks - 1);
    case Op::kAllGather:
    case Op::kReduceScatter:
      return ranks - 1;
    default:
      return ranks;
  }
}

}  // namespace

GpuArch nccl_arch_of(const std::string& family, const std::string& gpu, const std::string& source) {
  if (family == "volta") return GpuArch::kVolta;
  if (family == "ampere" || family == "ada") return GpuArch::kAmpere;
  if (family == "hopper") return GpuArch::kHopper;
  if (family == "blackwell") return GpuArch::kBlackwell;
  if (family.empty()) {
    throw InputError(source, "/server/gpu",
                     "the GPU architecture of '" + gpu + "' is not known: name a GPU profile (models/gpus) with an \"arch\"");
  }
  throw InputError(source, "/server/gpu", "'" + gpu + "' is a " + family + " GPU, for which ctwin has no NCCL tuning tables");
}

Bytes pipeline_chunk(const CostContext& where, Protocol protocol, Bytes size) {
  constexpr std::int64_t kSimpleStep = (std::int64_t{4} << 20) / 8;
  constexpr std::int64_t kLlStep = 8 * 512 * 8 * 16 / 8;         // lines/thread × threads × steps × 16 B, per step
  constexpr std::int64_t kLl128Step = 120 * 640 * 8 * 8 / 8;     // elements/thread × threads × steps × 8 B, per step
  const std::int64_t bytes = size.count();
  const int p = protocol_index(protocol);
  std::int64_t chunk = p == 2 ? kSimpleStep : p == 0 ? kLlStep / 2 : kLl128Step / 16 * 15;
  const double nodes = std::max(1, where.nodes);
  const double ppn = static_cast<double>(where.ranks) / nodes;
  switch (where.algorithm) {
    case Algorithm::kTree: {
      if (protocol == Protocol::kLL128) {
        const double steps = 1 + std::log2(nodes) + 0.1 * ppn;
        const double channels = std::max(1, where.channels);
        const auto per_channel_chunks = [&] { return static_cast<double>(bytes) / (channels * static_cast<double>(chunk)); };
        while (per_channel_chunks() < steps * 64 / ppn && chunk > 131072) chunk /= 2;
        while (per_channel_chunks() < steps * 16 / ppn && chunk > 32768) chunk /= 2;
      }
      return Bytes(chunk);
    }
    case Algorithm::kNvls: {
      const double ops = nvls_channels(where.arch, where.nodes);
      chunk = std::min<std::int64_t>(chunk, 128 * 1024);
      if (bytes < 64 * ops * chunk && chunk > 65536) chunk = 65536;
      if (bytes < 8 * ops * chunk && chunk > 32768) chunk = 32768;
      if (bytes < 2 * ops * chunk && chunk > 16384) chunk = 16384;
      return Bytes(chunk);
    }
    case Algorithm::kNvlsTree: {
      const double ops = nvls_channels(where.arch, where.nodes);
      chunk = where.nodes >= 4 ? 65536 : 128 * 1024;
      if (bytes < 16 * ops * chunk && chunk > 131072) chunk = 131072;
      if (bytes < 4 * ops * chunk && chunk > 65536) chunk = 65536;
      if (bytes < 1 * ops * chunk && chunk > 32768) chunk = 32768;
      return Bytes(chunk);
    }
    case Algorithm::kRing:
      // Broadcast and reduce run as pipelined chains; all_reduce and the gathers are rings.
      return where.op == Op::kBroadcast || where.op == Op::kReduce ? Bytes(chunk) : Bytes(0);
    default:
      return Bytes(0);
  }
}

ProtocolCost CollectiveTuning::cost(const CostContext& where, Protocol protocol, HopClass hop) const {
  const int p = protocol_index(protocol);
  const int arch = static_cast<int>(where.arch);
  const int node_bucket = where.nodes <= 2 ? where.nodes - 1 : 2;
  const Family latency_family = latency_family_of(where.algorithm);
  const Family family = where.algorithm == Algorithm::kHalvingDoubling ? kRingFamily : latency_family;
  const double channels = std::max(1, where.channels);
  ProtocolCost cost;
  if ((family == kNvlsFamily || family == kNvlsTreeFamily || family == kPatFamily) && protocol != Protocol::kSimple) {
    cost.supported = false;
  }

  cost.base_latency = SimTime::from_seconds(kBaseLatency[latency_family][p] * 1e-6 * latency_scale[static_cast<std::size_t>(p)]);
  double hop_us = kHopLatency[static_cast<int>(hop)][latency_family][p];
  // NCCL charges NVLS one NVLink latency for the whole in-switch reduction and multicast; the
  // NVLS plans span two NVLink hops (into the switch, out of it), so each pays half.
  if ((family == kNvlsFamily || family == kNvlsTreeFamily) && hop != HopClass::kNet) hop_us /= 2;
  // PAT: NCCL charges log2(nodes) · (network latency / 3.5) + 2.8 us per rank; the plan has
  // one round per log2 step, and the linear part goes into the base latency.
  if (family == kPatFamily) {
    if (hop == HopClass::kNet) hop_us /= 3.5;
    cost.base_latency += SimTime::from_seconds(2.8e-6 * where.ranks * latency_scale[static_cast<std::size_t>(p)]);
  }
  // Rings across nodes launch a network post at every step, inside nodes too: NCCL's
  // getNetOverhead, 1 us on Intel hosts (2 on AMD; Intel assumed), three times for Simple.
  if (latency_family == kRingFamily && where.nodes > 1 && hop != HopClass::kNet) {
    hop_us = std::max(hop_us, protocol == Protocol::kSimple ? 3.0 : 1.0);
  }
  cost.hop_latency = SimTime::from_seconds(hop_us * 1e-6 * latency_scale[static_cast<std::size_t>(p)]);

  double share = 1;
  double ceiling = 0;
  switch (family) {
    case kRingFamily:
      if (protocol == Protocol::kLL) {
        share = 0.5;
        ceiling = where.nodes == 1 ? kLlMaxOneNode[arch] : kLlMaxMultiNode[where.nodes <= 2 ? 0 : 1];
      } else if (protocol == Protocol::kLL128) {
        share = 0.92;
        ceiling = channels * kPerChannelRingLl128[arch];
      }
      cost.bus_bytes_per_byte = ring_steps(where.op, where.ranks) / where.ranks;
      break;
    case kTreeFamily:
      share = 0.92;
      ceiling = channels * kPerChannelTree[arch][node_bucket];
      if (protocol == Protocol::kLL) {
        share /= 3.8;
        ceiling = std::min(ceiling / 3.8, where.nodes == 1 ? kLlMaxOneNode[arch] : kLlMaxMultiNode[where.nodes <= 2 ? 0 : 1]);
      } else if (protocol == Protocol::kLL128) {
        share *= where.nodes == 1 ? 7.0 / 9.0 : 120.0 / 128.0;
        ceiling = std::min(ceiling, channels * kPerChannelTreeLl128[arch][node_bucket]);
      }
      cost.bus_bytes_per_byte = 2;
      break;
    case kPatFamily:
      // NCCL's PAT model: a quarter of the bus bandwidth goes to its aggregation overhead.
      share = 0.75;
      break;
    case kNvlsFamily:
    case kNvlsTreeFamily: {
      // Only the switch legs pay NVLS's efficiency; the tree between nodes moves whole links.
      const double nvls = nvls_channels(where.arch, where.nodes);
      cost.switch_share = std::min(1.0, kNvlsEfficiency[arch] * (nvls - 1) / nvls * nvls_scale);
      if (family == kNvlsTreeFamily) ceiling = nvls * kPerChannelNvlsTree[arch][node_bucket] * nvls_scale;
      cost.bus_bytes_per_byte = ring_steps(where.op, where.ranks) / where.ranks;
      if (cost.switch_share <= 0) cost.supported = false;
      cost.bandwidth_share = 1;
      cost.max_bus_GBps = ceiling;
      return cost;
    }
  }
  double scale = 1;
  if (protocol == Protocol::kLL) {
    scale = ll_share_scale;
  } else if (protocol == Protocol::kLL128) {
    scale = ll128_share_scale;
  }
  cost.bandwidth_share = std::min(1.0, share * scale);
  cost.switch_share = cost.bandwidth_share;
  cost.max_bus_GBps = ceiling * scale;
  return cost;
}

}  // namespace ctwin::collectives
