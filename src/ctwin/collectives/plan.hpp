#pragma once
// A collective as NCCL runs it, turned into transfers: phases of concurrent transfers, each
// phase repeated as a pipelined step (a ring all_reduce is one step, each rank sending a chunk
// to the next, repeated 2(n−1) times). A plan never touches the event queue; the executors
// in plan_timing.hpp play it on a network model. Sizes are fractions of the collective's size
// (nccl-tests' "size" column), so one plan serves a whole size sweep.

#include <array>
#include <string>
#include <vector>

#include "ctwin/collectives/collective.hpp"
#include "ctwin/collectives/tuning.hpp"
#include "ctwin/fabric/fabric.hpp"
#include "ctwin/fabric/router.hpp"

namespace ctwin::collectives {

struct PlannedTransfer {
  fabric::GpuId src = 0;
  fabric::GpuId dst = 0;
  double fraction = 0;  ///< bytes moved = fraction × collective size
  fabric::RouteOptions route;
  HopClass hop = HopClass::kNvlink;
};

struct Phase {
  std::string what;
  std::vector<PlannedTransfer> transfers;
  int repeat = 1;        ///< identical steps in a row, each waiting for the data of the last
  int latency_hops = 1;  ///< hops one step's latency spans in sequence (a pipelined tree's depth)
  /// The same by hop class (NVLink, PCIe, network) where the classes differ along the way, as
  /// NCCL counts a tree: 2·(GPUs per node − 1) hops inside nodes and 2·depth between them.
  /// All zero: latency_hops hops of the phase's mean hop latency.
  std::array<int, 3> pipeline_hops{};
};

struct Plan {
  Op op = Op::kAllReduce;
  Algorithm algorithm = Algorithm::kRing;
  int ranks = 0;
  bool multi_node = false;
  std::vector<Phase> phases;
  int nodes = 1;
  int channels = 1;
  GpuArch arch = GpuArch::kHopper;

  [[nodiscard]] CostContext context() const { return {algorithm, op, ranks, nodes, channels, arch}; }
};

/// The plan of `op` by `algorithm` over every GPU of `fabric`, with `channels` channels.
/// Throws InputError naming --algo when the algorithm cannot run the op there (NVLS without
/// an NVLS-capable NVSwitch, halving-doubling on a GPU count that is not a power of two, ...).
[[nodiscard]] Plan make_plan(Op op, Algorithm algorithm, const fabric::Fabric& fabric, int channels);

/// The algorithms that can run `op` on `fabric`, in the order `auto` tries them. On a build whose
/// sites (fabric.sites) hold the same number of GPUs each, all_reduce, reduce_scatter and
/// all_gather can also run hierarchically (kHierarchical: rings inside each site, a ring over the
/// sites across the DCI); make_plan refuses it on one site (where it would be the ring).
[[nodiscard]] std::vector<Algorithm> candidate_algorithms(Op op, const fabric::Fabric& fabric);

/// Channels used when the tuning leaves it open: one per NIC rail across nodes, one per GPU
/// inside a node.
[[nodiscard]] int default_channels(const fabric::Fabric& fabric);

}  // namespace ctwin::collectives
