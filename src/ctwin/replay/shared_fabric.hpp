#pragma once
// Communication of a replayed step on one flow simulation of the whole cluster, so that ops
// overlapping in time (a DP reduce-scatter beside a pipeline send, EP all-to-alls beside CP ring
// passes) share NICs, leaves and spines.
//
// Each collective becomes its traffic: a ring's edges (member j to j + 1) for all-reduce,
// reduce-scatter, all-gather, broadcast, reduce and sendrecv; for all-to-all every ordered pair
// of members inside a node, and across nodes one flow per (sending node, receiving member) from
// the sending node's GPU on the receiver's rail (PXN's path; the NVLink legs are left off); each
// rank to its peer in the next stage for a pipeline send. Its bytes are scaled
// so that the traffic of one group, alone on the fabric, lasts the time the communication twin
// predicted for the collective (its algorithm, protocol and latencies: comm_groups.hpp); on a
// shared fabric it lasts longer wherever other traffic takes link capacity. An op ends at the
// later of its predicted time and the end of its traffic, so contention can only slow it.
//
// Scale: with leader kEveryGroup an op stands for every group of its shape in the stage; a group
// that spans nodes puts all of them on the fabric, one inside a node only the groups of the
// stage's first node (the others load only their own nodes' NVLink, which nothing else of the
// replay crosses: sends and DP traffic leave by the NICs, rail-aligned).

#include <cstdint>
#include <map>
#include <memory>
#include <tuple>
#include <utility>
#include <vector>

#include "ctwin/fabric/cluster_spec.hpp"
#include "ctwin/fabric/fabric.hpp"
#include "ctwin/network/network_model.hpp"
#include "ctwin/replay/comm_executor.hpp"

namespace ctwin::replay {

class SharedFabricExecutor final : public CommExecutor {
 public:
  /// `built`: the first GPUs of a cluster, in pipeline stages of `stage_gpus` consecutive GPUs.
  /// `healthy`: when `built` has degraded parts, the same build without them, on which the paces
  /// are measured (a degraded part must slow the traffic, not shrink the bytes paced to it).
  SharedFabricExecutor(std::shared_ptr<const fabric::Fabric> built, std::int64_t stage_gpus, engine::Simulator& simulator,
                       std::shared_ptr<const fabric::Fabric> healthy = nullptr);
  ~SharedFabricExecutor() override;
  SharedFabricExecutor(const SharedFabricExecutor&) = delete;
  SharedFabricExecutor& operator=(const SharedFabricExecutor&) = delete;

  void start_collective(const CommCall& call, SimTime isolated, int stage, std::int64_t leader, Done done) override;
  void start_send(const CommCall& call, SimTime isolated, int from, int to, std::int64_t local, Done done) override;

  /// What was put on the shared fabric and what arrived (the per-group probes are not counted).
  [[nodiscard]] const network::TransferStats& stats() const { return network_->stats(); }

 private:
  // One GPU pair's transfer, its PXN routing decided once.
  struct Edge {
    fabric::GpuId src = 0;
    fabric::GpuId dst = 0;
    bool pxn = false;
  };
  using Pattern = std::vector<Edge>;
  // Fluid time of one group's traffic alone: fixed part and part per byte of each transfer.
  struct Pace {
    double fixed_s = 0;
    double per_byte_s = 0;
  };
  // An op whose flows are in flight; slots are reused, so a flow's completion captures an index.
  struct Pending {
    std::size_t left = 0;
    SimTime deadline;
    Done done;
  };
  // (op, group size, stride, stage, leader) of a collective; (−1, from, to, local, 0) of a send.
  using PatternKey = std::tuple<int, std::int64_t, std::int64_t, std::int64_t, std::int64_t>;

  void append_group(const CommCall& call, int stage, std::int64_t leader, Pattern& out) const;
  void append_edge(fabric::GpuId src, fabric::GpuId dst, Pattern& out) const;
  [[nodiscard]] const Pattern& collective_pattern(const CommCall& call, int stage, std::int64_t leader);
  [[nodiscard]] const Pattern& send_pattern(int from, int to, std::int64_t local);
  [[nodiscard]] const Pace& pace_of(const PatternKey& one_group, const Pattern& pattern);
  [[nodiscard]] double alone_s(const Pattern& pattern, std::int64_t bytes);
  void launch(const Pattern& pattern, const Pace& pace, SimTime isolated, Done done);
  void flow_done(std::uint32_t slot);

  std::shared_ptr<const fabric::Fabric> fabric_;
  std::shared_ptr<const fabric::Fabric> pace_fabric_;  ///< healthy: `fabric_` unless that is degraded
  std::int64_t stage_gpus_ = 1;
  bool pxn_ = false;  ///< the servers have NVLink, so NCCL uses PXN between nodes
  engine::Simulator& simulator_;
  std::unique_ptr<network::NetworkModel> network_;
  engine::Simulator probe_simulator_;  ///< for the paces: one group's traffic alone
  std::unique_ptr<network::NetworkModel> probe_network_;
  std::map<PatternKey, Pattern> patterns_;
  std::map<PatternKey, Pace> paces_;  // keyed by the pattern of one group (stage 0, leader 0; a send's first rank)
  std::vector<Pending> pending_;
  std::vector<std::uint32_t> free_slots_;
};

}  // namespace ctwin::replay
