#include "ctwin/collectives/tuning.hpp"

#include "ctwin/core/error.hpp"

namespace ctwin::collectives {
namespace {

// Indexed [protocol: LL, LL128, Simple]; microseconds. NCCL tuning.cc baseLat and hwLat.
constexpr double kRingBase[3] = {3.6, 10.0, 8.4};
constexpr double kTreeBase[3] = {4.4, 4.4, 0.0};
constexpr double kRingHop[3][3] = {{.47, 1.9, 3.4}, {1.0, 2.5, 5.7}, {2.7, 4.0, 9.6}};  // NVLink, PCIe, net
constexpr double kTreeHop[3][3] = {{.52, 1.2, 28}, {1.0, 1.9, 28}, {5.0, 8.5, 50}};

int index_of(Protocol protocol) {
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

}  // namespace

ProtocolCost CollectiveTuning::cost(Algorithm algorithm, Protocol protocol, Op op, HopClass hop, bool multi_node) const {
  const int p = index_of(protocol);
  const int h = static_cast<int>(hop);
  // Trees and halving-doubling pipeline chunks down a tree or across partners: NCCL's tree
  // figures. Rings, direct sends and NVLS move one step per hop: its ring figures (NVLS has no
  // entry in that table; ring Simple stands in until calibrated).
  const bool tree_like = algorithm == Algorithm::kTree || algorithm == Algorithm::kNvlsTree ||
                         algorithm == Algorithm::kHalvingDoubling;
  ProtocolCost cost;
  cost.base_latency = SimTime::from_seconds((tree_like ? kTreeBase[p] : kRingBase[p]) * 1e-6);
  cost.hop_latency = SimTime::from_seconds((tree_like ? kTreeHop[h][p] : kRingHop[h][p]) * 1e-6 * latency_scale);
  double share = 1;
  if (protocol == Protocol::kLL) {
    if (tree_like) {
      share = 0.9 / 3.8;
    } else {
      share = multi_node || op == Op::kAllReduce || op == Op::kReduce ? 1.0 / 4.0 : 1.0 / 3.0;
    }
  } else if (protocol == Protocol::kLL128) {
    share = tree_like ? (multi_node ? 0.915 : 7.0 / 9.0) : 0.92;
  } else if (tree_like) {
    share = 0.9;
  }
  cost.bandwidth_share = share * bandwidth_scale;
  return cost;
}

}  // namespace ctwin::collectives
