#pragma once
// What nccl-tests would print: for each size, the time of the collective and its algbw and
// busbw, with the algorithm and protocol used. With `auto`, each size gets the fastest
// predicted (algorithm, protocol), as NCCL's tuner picks by its own cost model.

#include <string>
#include <vector>

#include "ctwin/collectives/plan.hpp"
#include "ctwin/network/network_model.hpp"

namespace ctwin::collectives {

struct CollectiveQuery {
  Op op = Op::kAllReduce;
  Algorithm algorithm = Algorithm::kAuto;
  Protocol protocol = Protocol::kAuto;
  std::vector<Bytes> sizes;  ///< nccl-tests' size column
  int element_bytes = 4;     ///< nccl-tests' default type is float
  network::ModelKind network = network::ModelKind::kFlow;
  CollectiveTuning tuning;
  bool every_transfer = false;  ///< simulate every step instead of one step per phase
};

struct CollectiveRow {
  Bytes size;
  std::int64_t count = 0;  ///< elements, as nccl-tests prints them
  SimTime time;
  double algbw_GBps = 0;
  double busbw_GBps = 0;
  Algorithm algorithm = Algorithm::kRing;
  Protocol protocol = Protocol::kSimple;
};

struct CollectiveResult {
  Op op = Op::kAllReduce;
  int gpus = 0;
  int channels = 0;
  std::vector<CollectiveRow> rows;
  std::uint64_t events = 0;  ///< engine events the steady-state simulations took (0 for every-transfer)
};

[[nodiscard]] CollectiveResult predict_collective(const fabric::Fabric& fabric, const CollectiveQuery& query);

/// The time of `plan` (made on `fabric`, or mapped onto its GPUs) for `size` bytes as nccl-tests
/// counts them, with the fastest protocol the tuning supports for it: what predict_collective
/// gives the plan's algorithm. Used for a group whose members sit on the nodes of a real build
/// (replay/comm_groups.hpp, a group straddling NVLink domains).
[[nodiscard]] SimTime plan_time(const Plan& plan, const fabric::Fabric& fabric, Bytes size, int element_bytes,
                                network::ModelKind network, const CollectiveTuning& tuning);

/// nccl-tests' -b/-e/-f: begin, begin·f, ... up to end.
[[nodiscard]] std::vector<Bytes> size_sweep(Bytes begin, Bytes end, double factor);

}  // namespace ctwin::collectives
