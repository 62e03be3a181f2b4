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
//   - otherwise the k = min(size, GPUs per node / stride) members of each node: a cluster whose
//     servers keep k GPUs with their share of NICs, PCIe switches and sockets (for k = 1 one rail's
//     slice of a rail-optimized fabric). Every set of k local ranks of a node runs the same
//     collective at the same time on its own NICs, and rails do not share leaves, so one slice
//     stands for all of them. The DCI between sites (fabric.sites) does carry them all: a slice
//     keeps k/(GPUs per node) of its bandwidth. Approximations: on a top-of-rack fabric the node's NICs share a
//     leaf and that sharing is missed here (the shared-fabric replay, shared_fabric.hpp, puts it
//     back); concurrent collectives of different groups (TP beside DP) do not share one fabric
//     simulation here either.
// Sites (fabric.sites, located with place() or locate_sites()): the build's nodes lie in its
// sites in order, ceil(nodes / sites) to a site. A group whose members all sit in one site is
// predicted on one site's fabric (the spec without `sites`: a site is a copy of the fabric);
// one spanning k > 1 sites on a k-site fabric of its size, its nodes spread evenly over them.
// Unlocated, a group's fabric spreads over every site of the spec.
// Placement (placement.hpp): with place() the members per node are those of the shape's group of
// stage 0 where the placement puts it (64 of a 72-GPU rack for EP 64 under domain_aligned), and
// placed_time() prices every other group where its members really sit: a group laid out as the
// shape's fabric assumes keeps the op's time, one with another whole number per node is predicted
// on that slice, and one spread unevenly (straddling two NVLink domains under the contiguous
// placement: 8 members in one rack, 56 in the next) has the shape's plan mapped onto its GPUs of
// the real build and timed there, each transfer on the path it really takes.
// Results are cached per (op, group shape, members per node, size, element bytes), in a CollectiveCache that many
// steps on the same cluster and network may share (api::EvalContext keeps one per pair), with
// the algorithm the communication twin chose, whose plan (collectives/plan.hpp, on the group's
// fabric) is the traffic a shared-fabric replay puts on the cluster (shared_fabric.hpp).

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "ctwin/collectives/collective.hpp"
#include "ctwin/collectives/plan.hpp"
#include "ctwin/collectives/tuning.hpp"
#include "ctwin/core/units.hpp"
#include "ctwin/fabric/cluster_spec.hpp"
#include "ctwin/fabric/fabric.hpp"
#include "ctwin/network/network_model.hpp"
#include "ctwin/replay/placement.hpp"

namespace ctwin::replay {

struct GroupShape {
  std::int64_t size = 1;
  std::int64_t stride = 1;  ///< GPUs between consecutive members
  friend auto operator<=>(const GroupShape&, const GroupShape&) = default;
};

/// One collective as the operation graph asks for it. Ops keep it beside their predicted time so
/// that a shared-fabric replay can put the collective's traffic on the fabric.
struct CommCall {
  collectives::Op op = collectives::Op::kAllReduce;
  GroupShape group;
  Bytes size;  ///< as nccl-tests counts it (see CollectiveTimes::time)
  int element_bytes = 2;
};

/// A collective with the time the communication twin predicts for it alone.
struct TimedCall {
  CommCall call;
  SimTime time;
};

/// Groups of one shape tile a pipeline stage's GPUs (stage-local ranks 0..stage_gpus−1) in
/// blocks of size·stride: block b holds `stride` groups, group o of it the ranks
/// b·size·stride + o + j·stride.
[[nodiscard]] std::int64_t group_leader(GroupShape group, std::int64_t local_rank);
[[nodiscard]] std::vector<std::int64_t> group_members(GroupShape group, std::int64_t leader);
[[nodiscard]] std::vector<std::int64_t> group_leaders(GroupShape group, std::int64_t stage_gpus);

/// Collective times and group fabrics of one cluster and network model, shared by every step
/// predicted on them. Thread-safe. A time is a pure function of its key, so whichever step
/// predicts it first, every step reads the same value.
/// What the communication twin predicted for one collective: its time and the algorithm that
/// gives it (NCCL's tuner's pick among the plans that can run it).
struct CollectivePrediction {
  SimTime time;
  collectives::Algorithm algorithm = collectives::Algorithm::kRing;
};

class CollectiveCache {
 public:
  /// op, group, members per node (0: one node), sites (0: unlocated), size in bytes, element bytes
  using Key = std::tuple<int, GroupShape, std::int64_t, int, std::int64_t, int>;
  /// members per node (0: one node; −1: the whole build), size (GPUs of the build for −1), sites
  using FabricKey = std::tuple<std::int64_t, std::int64_t, int>;
  using PlanKey = std::tuple<int, GroupShape, std::int64_t, int, int>;  ///< op, group, members per node, sites, algorithm

  [[nodiscard]] std::optional<CollectivePrediction> find(const Key& key) const;
  void insert(const Key& key, CollectivePrediction prediction);
  /// The fabric stored under `key`, built by `build` the first time it is asked for.
  [[nodiscard]] std::shared_ptr<const fabric::Fabric> fabric(const FabricKey& key,
                                                             const std::function<fabric::Fabric()>& build);
  /// The plan stored under `key`, made by `make` the first time it is asked for.
  [[nodiscard]] std::shared_ptr<const collectives::Plan> plan(const PlanKey& key,
                                                              const std::function<collectives::Plan()>& make);

 private:
  mutable std::mutex mutex_;
  std::map<Key, CollectivePrediction> times_;
  std::map<FabricKey, std::shared_ptr<const fabric::Fabric>> fabrics_;
  std::map<PlanKey, std::shared_ptr<const collectives::Plan>> plans_;
};

class CollectiveTimes {
 public:
  /// `free` makes every collective take no time (the oracle tests' zero-cost communication).
  /// `cache` holds predictions already made on this cluster and network, if any.
  /// `tuning`: the collectives' protocol costs (a calibration's); a cache must hold predictions
  /// made with the same tuning (api::EvalContext keys caches by the calibrated cluster).
  CollectiveTimes(fabric::ClusterSpec cluster, network::ModelKind network, bool free = false,
                  std::shared_ptr<CollectiveCache> cache = nullptr, collectives::CollectiveTuning tuning = {});
  ~CollectiveTimes();
  CollectiveTimes(CollectiveTimes&&) noexcept;

  /// Time of `op` over `group`; `size` as nccl-tests counts it (the whole buffer of all_gather's
  /// output, reduce_scatter's input; per rank for sendrecv). Zero for a group of one.
  [[nodiscard]] SimTime time(collectives::Op op, GroupShape group, Bytes size, int element_bytes) {
    return predict(op, group, size, element_bytes).time;
  }
  [[nodiscard]] SimTime time(const CommCall& call) { return time(call.op, call.group, call.size, call.element_bytes); }
  [[nodiscard]] TimedCall timed(const CommCall& call) { return {call, time(call)}; }
  /// The plan of the algorithm time() chose for `call`, on the group's fabric: its GPU g is the
  /// group's member g (group_members order). Null where the call moves nothing (a group of
  /// one, no bytes, free communication).
  [[nodiscard]] std::shared_ptr<const collectives::Plan> plan(const CommCall& call);
  /// The fabric shaped like `group` that its collectives are predicted and planned on.
  [[nodiscard]] std::shared_ptr<const fabric::Fabric> group_fabric(GroupShape group) { return fabric_for(group); }
  /// Ranks sit where `placement` puts them, pipeline stages being `stage_gpus` consecutive ranks
  /// (see the top of this file). Without it ranks are contiguous from GPU 0 and a group's members
  /// per node follow from its stride.
  void place(const Placement& placement, std::int64_t stage_gpus);
  /// On a multi-site build, prices each group on the sites `placement` puts its members in (see
  /// the top of this file) without placing ranks otherwise; place() does it too.
  void locate_sites(const Placement& placement);
  /// The time of pipeline send `call` from stage `from` to stage `to`, `isolated` being its time
  /// between the stages 0 and 1: a send crossing sites where those do not (or the reverse) is
  /// predicted on the sites it spans. `isolated` on one site or unlocated.
  [[nodiscard]] SimTime send_time(const CommCall& call, SimTime isolated, int from, int to);
  /// The fabric a send from stage `from` to `to` that crosses sites is predicted on (its pair
  /// on the sites it spans, a node slice's share of the DCI); null for a send inside one site.
  [[nodiscard]] std::shared_ptr<const fabric::Fabric> crossing_send_fabric(const CommCall& call, int from, int to);
  /// The fabric the collective `call` is predicted and planned on when its group (the shape's,
  /// stage 0) spans sites: its node slice on those sites, with the slice's share of the DCI;
  /// null for a group inside one site.
  [[nodiscard]] std::shared_ptr<const fabric::Fabric> spanning_group_fabric(const CommCall& call);
  /// The time of `call` for the group of `stage` led by `leader` (kEveryGroup: every group of
  /// its shape in the stage, the slowest counting) on the nodes its members occupy, `isolated`
  /// being the op's time for the shape's own layout. `isolated` without a placement.
  [[nodiscard]] SimTime placed_time(const CommCall& call, SimTime isolated, int stage, std::int64_t leader);
  /// The same pricing (network, tuning, free communication, placement) on the build with every
  /// node a `server` (a pool group's own, node_pool.hpp), with its own cache; the GPU family
  /// (NCCL's tables) stays this build's.
  [[nodiscard]] CollectiveTimes on_server(const fabric::ServerSpec& server) const;
  /// Distinct predictions made (cache misses), for reports and tests.
  [[nodiscard]] std::int64_t predictions() const { return predictions_; }

 private:
  // Members per node of the shape's fabric (0: one node).
  [[nodiscard]] std::int64_t members_per_node(GroupShape group) const;
  // Sites the build's GPUs `gpus` lie in (0: one-site build or sites unlocated).
  [[nodiscard]] int sites_of(const std::vector<std::int64_t>& gpus) const;
  // Sites of the group of `group` led by global rank `first` (0: unknown, see sites_of).
  [[nodiscard]] int group_sites(GroupShape group, std::int64_t first) const;
  // Sites a send from stage `from` to `to` spans: more than one if any rank's peer is in another site.
  [[nodiscard]] int send_sites(int from, int to) const;
  std::shared_ptr<const fabric::Fabric> fabric_for(GroupShape group) {
    return fabric_for(group, members_per_node(group), group_sites(group, 0));
  }
  std::shared_ptr<const fabric::Fabric> fabric_for(GroupShape group, std::int64_t per_node, int sites);
  CollectivePrediction predict(collectives::Op op, GroupShape group, Bytes size, int element_bytes) {
    return predict(op, group, members_per_node(group), group_sites(group, 0), size, element_bytes);
  }
  CollectivePrediction predict(collectives::Op op, GroupShape group, std::int64_t per_node, int sites, Bytes size,
                               int element_bytes);
  // The time of `call` for members on the build's GPUs `gpus`, spread unevenly over nodes.
  SimTime remapped_time(const CommCall& call, const std::vector<std::int64_t>& gpus, std::int64_t largest_run);

  fabric::ClusterSpec cluster_;
  network::ModelKind network_;
  bool free_ = false;
  collectives::CollectiveTuning tuning_;
  std::int64_t predictions_ = 0;
  std::shared_ptr<CollectiveCache> cache_;
  std::optional<Placement> placement_;
  std::int64_t stage_gpus_ = 0;
  std::optional<Placement> site_placement_;  ///< where ranks sit, for their sites (multi-site builds only)
  std::int64_t site_gpus_ = 0;  ///< GPUs of one site of the build (0: one site, or unlocated)
  std::map<std::tuple<int, int, std::int64_t>, double> sends_;  ///< send_time's ratio to the stage 0 to 1 send: stages, bytes
  // placed_time's answers: op, group, size, element bytes, stage, leader.
  std::map<std::tuple<int, GroupShape, std::int64_t, int, int, std::int64_t>, SimTime> placed_;
};

}  // namespace ctwin::replay
