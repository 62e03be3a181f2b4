#pragma once
// Communication of a replayed step on one flow simulation of the whole cluster, so that ops
// overlapping in time (a DP reduce-scatter beside a pipeline send, EP all-to-alls beside CP ring
// passes) share NICs, leaves and spines.
//
// A collective's traffic is the plan of the algorithm the communication twin chose for it
// (CollectiveTimes::plan, collectives/plan.hpp): the plan's GPU g, on the group's fabric, is the
// group's member g on the cluster, and each of its transfers keeps its source, destination,
// share of the bytes, channel (the flow label ECMP hashes), PXN and NVSwitch leg. Phases run in
// the plan's order, each once every transfer of the one before has arrived; a phase's repeated
// steps are one transfer carrying all of their bytes (the steady state the collectives' own
// timing simulates, plan_timing.hpp). A pipeline send is each rank to its peer in the next stage,
// in two flows (NCCL's two channels per network peer).
//
// Pace: every transfer of an op carries its planned bytes times one factor, chosen so that the
// traffic of one group alone on the fabric lasts the time the communication twin predicted
// (which adds the protocol's wire overhead and latencies to the plan's bytes); on a shared
// fabric it lasts longer wherever other traffic takes link capacity. An op ends at the later
// of its predicted time and the end of its traffic, so contention can only slow it.
//
// Scale: with leader kEveryGroup an op stands for every group of its shape in the stage; a group
// that spans nodes puts all of them on the fabric, one inside a node only the groups of the
// stage's first node (the others load only their own nodes' NVLink, which nothing else of the
// replay crosses: sends and DP traffic leave by the NICs, rail-aligned). The groups of one op
// move through the plan's phases together.
//
// Placement (placement.hpp): rank r of the job (stage · stage_gpus + stage-local rank) is the
// build's GPU placement.gpu(r); every transfer goes between the GPUs its ranks sit on.
//
// Sample (flow_sample.hpp): with sample_gpus below stage_gpus, groups and sends that fit inside
// a stage's first sample_gpus ranks are put on the fabric for those ranks only; wider groups
// keep all of theirs.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include "ctwin/fabric/cluster_spec.hpp"
#include "ctwin/fabric/fabric.hpp"
#include "ctwin/network/network_model.hpp"
#include "ctwin/replay/comm_executor.hpp"

namespace ctwin::replay {

/// One transfer as it was put on the shared fabric, for tests that compare traffic with plans.
struct LaunchedTransfer {
  int phase = 0;       ///< index into the op's plan
  int repeat = 1;      ///< steps of the phase it carries
  fabric::GpuId src = 0;
  fabric::GpuId dst = 0;
  double fraction = 0;  ///< planned bytes of one step = fraction × the collective's size
  Bytes bytes;          ///< on the fabric: fraction × repeat × size × the op's pace factor
  fabric::RouteOptions route;
  SimTime start;
};

class SharedFabricExecutor final : public CommExecutor {
 public:
  /// `built`: the first GPUs of a cluster, in pipeline stages of `stage_gpus` consecutive GPUs.
  /// `plans`: the collectives' times and plans of the step (outlives the executor).
  /// `healthy`: when `built` has degraded parts, the same build without them, on which the paces
  /// are measured (a degraded part must slow the traffic, not shrink the bytes paced to it).
  /// `sample_gpus`: stage-local ranks whose narrow groups stand for the stage's (0: stage_gpus).
  /// `placement`: the GPU of each rank (null: rank r on GPU r).
  /// `network`: a flow model of `built` on `simulator` that other jobs' executors share (several
  /// jobs on one fabric, cluster_replay.hpp); null: the executor makes its own.
  SharedFabricExecutor(std::shared_ptr<const fabric::Fabric> built, std::int64_t stage_gpus, engine::Simulator& simulator,
                       CollectiveTimes& plans, std::shared_ptr<const fabric::Fabric> healthy = nullptr,
                       std::int64_t sample_gpus = 0, const Placement* placement = nullptr,
                       network::NetworkModel* network = nullptr);
  ~SharedFabricExecutor() override;
  SharedFabricExecutor(const SharedFabricExecutor&) = delete;
  SharedFabricExecutor& operator=(const SharedFabricExecutor&) = delete;

  void start_collective(const CommCall& call, SimTime isolated, int stage, std::int64_t leader, Done done) override;
  void start_send(const CommCall& call, SimTime isolated, int from, int to, std::int64_t local, Done done) override;

  /// What was put on the shared fabric and what arrived (the per-group probes are not counted).
  [[nodiscard]] const network::TransferStats& stats() const { return network_->stats(); }
  /// Records every transfer started from now on into `log` (null: stop).
  void record(std::vector<LaunchedTransfer>* log) { log_ = log; }
  /// Counts, from now on, the bytes put on routes that climb a leaf-to-spine cable (a node
  /// policy's report; off by default, as it routes every flow once more).
  void count_cross_spine() { count_spine_ = true; }
  [[nodiscard]] Bytes cross_spine_bytes() const { return Bytes(cross_spine_); }
  /// Adds, from now on, the bytes of every transfer this executor starts to `bytes[link]` for
  /// each link of its route (`bytes` has one entry per link of the fabric; null: stop). Routes
  /// every flow once more, so off by default.
  void count_link_bytes(std::vector<double>* bytes) { link_bytes_ = bytes; }
  /// Bytes this executor put on the fabric (with a shared network, stats() counts every job's).
  [[nodiscard]] Bytes bytes_started() const { return Bytes(bytes_started_); }
  /// Per pipeline stage, the pricing whose plans its ops follow (a pool's groups' own servers,
  /// node_pool.hpp; null or beyond the list: `plans`). With any, each stage's ops are paced on
  /// that stage's own groups, whose nodes may be built from another server than stage 0's.
  void plan_stages(std::vector<CollectiveTimes*> stage_plans) { stage_plans_ = std::move(stage_plans); }

 private:
  // One transfer of a phase, on the cluster's GPUs.
  struct Flow {
    fabric::GpuId src = 0;
    fabric::GpuId dst = 0;
    double fraction = 0;  // of the collective's size, one step
    fabric::RouteOptions route;
    std::uint32_t group_class = 0;  // index into the op's GroupClass list (0: paced like the reference group)
    mutable std::int8_t crosses_spine = -1;  // -1 until first counted (count_cross_spine)
    mutable std::vector<fabric::LinkId> links{};  // its route, once count_link_bytes needed it
  };
  struct Phase {
    std::vector<Flow> flows;
    int repeat = 1;
  };
  using Traffic = std::vector<Phase>;
  // Fluid time of one group's traffic alone: fixed part and part per byte of collective size.
  struct Pace {
    double fixed_s = 0;
    double per_byte_s = 0;
  };
  // (op, group size, stride, algorithm, stage, leader) of a collective; (−1, from, to, 0, local, 0) of a send.
  using TrafficKey = std::tuple<int, std::int64_t, std::int64_t, int, std::int64_t, std::int64_t>;
  // Groups of an op laid out unlike the shape's reference group (stage 0, leader 0) and so
  // predicted apart (CollectiveTimes::placed_time: one straddling two NVLink domains): their
  // time is `ratio` times the op's, and their traffic is paced on one of them alone. Class 0 is
  // the reference's (ratio 1).
  struct GroupClass {
    double ratio = 1;
    TrafficKey one_group;
    const Traffic* traffic = nullptr;
  };
  using Classes = std::vector<GroupClass>;
  // An op whose flows are in flight; slots are reused, so a flow's completion captures an index.
  struct Pending {
    const Traffic* traffic = nullptr;
    std::size_t phase = 0;
    std::size_t left = 0;
    std::vector<double> sizes;  // collective bytes the traffic moves, per group class
    SimTime deadline;
    Done done;
  };

  void append_group(const collectives::Plan& plan, const CommCall& call, int stage, std::int64_t leader,
                    Traffic& out, std::uint32_t group_class = 0) const;
  // The class of the group led by `leader` in `stage` among `classes` (added when new).
  std::uint32_t class_of(const CommCall& call, const collectives::Plan& plan, int stage, std::int64_t leader,
                         Classes& classes);
  [[nodiscard]] const Traffic& collective_traffic(const CommCall& call, const collectives::Plan& plan, int stage,
                                                  std::int64_t leader);
  [[nodiscard]] const Traffic& send_traffic(int from, int to, std::int64_t local);
  [[nodiscard]] const Pace& pace_of(const TrafficKey& one_group, const Traffic& traffic);
  [[nodiscard]] double alone_s(const Traffic& traffic, double size);
  // A crossing send's pair alone on the fabric it was predicted on (CollectiveTimes::crossing_send_fabric).
  [[nodiscard]] const Pace& crossing_pace(int from, int to, const fabric::Fabric& predicted_on);
  // A collective's plan alone on the fabric it was predicted on: a group spanning sites, whose
  // node slice keeps its share of the DCI (CollectiveTimes::spanning_group_fabric).
  [[nodiscard]] const Pace& spanning_pace(const TrafficKey& key, const collectives::Plan& plan,
                                          const fabric::Fabric& predicted_on);
  void launch(const Traffic& traffic, const Classes* classes, const Pace& pace, SimTime isolated, Done done);
  void start_phase(std::uint32_t slot);
  void flow_done(std::uint32_t slot);

  std::shared_ptr<const fabric::Fabric> fabric_;
  std::shared_ptr<const fabric::Fabric> pace_fabric_;  ///< healthy: `fabric_` unless that is degraded
  [[nodiscard]] fabric::GpuId gpu_of(std::int64_t stage, std::int64_t local) const {
    const std::int64_t rank = stage * stage_gpus_ + local;
    return static_cast<fabric::GpuId>(placement_ ? placement_->gpu(rank) : rank);
  }

  [[nodiscard]] CollectiveTimes& plans_of(int stage) const {
    const auto s = static_cast<std::size_t>(stage);
    return s < stage_plans_.size() && stage_plans_[s] != nullptr ? *stage_plans_[s] : plans_;
  }
  // The stage whose reference group paces `stage`'s ops: stage 0's stands for every stage of one build's server.
  [[nodiscard]] int pace_stage(int stage) const { return stage_plans_.empty() ? 0 : stage; }

  std::int64_t stage_gpus_ = 1;
  std::int64_t sample_gpus_ = 1;  ///< divides stage_gpus_
  std::optional<Placement> placement_;
  bool pxn_ = false;  ///< the servers have NVLink, so NCCL uses PXN between nodes
  engine::Simulator& simulator_;
  CollectiveTimes& plans_;
  std::vector<CollectiveTimes*> stage_plans_;
  std::unique_ptr<network::NetworkModel> own_network_;
  network::NetworkModel* network_ = nullptr;  ///< own_network_, or one shared with other jobs
  engine::Simulator probe_simulator_;  ///< for the paces: one group's traffic alone
  std::unique_ptr<network::NetworkModel> probe_network_;
  std::map<TrafficKey, Traffic> traffic_;
  std::map<TrafficKey, Classes> classes_;  // of a collective's traffic, by the same key
  std::map<TrafficKey, Pace> paces_;  // keyed by the traffic of one group (stage 0, leader 0; a send's first rank)
  std::vector<Pending> pending_;
  std::vector<std::uint32_t> free_slots_;
  std::vector<LaunchedTransfer>* log_ = nullptr;
  bool count_spine_ = false;
  std::int64_t cross_spine_ = 0;
  std::vector<double>* link_bytes_ = nullptr;
  std::int64_t bytes_started_ = 0;
};

}  // namespace ctwin::replay
