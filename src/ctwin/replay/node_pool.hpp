#pragma once
// A step on a heterogeneous pool (docs/heterogeneous.md). Megatron's rank order puts pipeline
// stage r on ranks [r·S, (r+1)·S) (S = tp·cp·dp), so a stage runs on the nodes those ranks fill,
// group by group in the pool's order. The replay keeps one rank per stage (replay.hpp): each
// stage runs its kernels at the speed of the slowest GPU kind among its ranks, because every TP
// collective inside a layer and the DP gradient sync at the step's end wait for the slowest
// member. When a stage mixes kinds across its DP replicas this is an upper bound on the step
// (each replica's pipeline is monotone in its stage times); when every stage sits in one group it
// is the step itself.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ctwin/replay/comm_groups.hpp"
#include "ctwin/replay/op_graph.hpp"
#include "ctwin/replay/scenario.hpp"
#include "ctwin/workload/memory_model.hpp"

namespace ctwin::replay {

/// The pool groups (indices into pool.groups) holding ranks [first_rank, end_rank).
[[nodiscard]] std::vector<std::size_t> groups_of_ranks(const Scenario& scenario, std::int64_t first_rank,
                                                       std::int64_t end_rank);
/// Per pipeline stage, the pool groups (indices into pool.groups) its ranks sit in (one DP
/// replica's, on a replica class's scenario: dp_shares.hpp).
[[nodiscard]] std::vector<std::vector<std::size_t>> stage_groups(const Scenario& scenario);

/// Checks the pool against the job: enough nodes, ranks in the groups' order. InputError naming
/// the scenario and /cluster/node_groups (or /placement).
void check_pool(const Scenario& scenario);

/// Each stage's memory within the smallest HBM among its groups (InputError naming
/// /cluster/node_groups). A scenario as read is checked; a planner's candidates are not (their
/// memory is the planner's filter, against the scenario's own GPU).
void check_pool_memory(const Scenario& scenario);

/// Transformer layers per virtual stage (chunk·pp + rank) in proportion to each stage's speed:
/// 1 / the compute time of one middle layer on its slowest GPU kind; largest remainders first,
/// ties to the lower virtual stage, at least one layer each.
[[nodiscard]] std::vector<std::int64_t> speed_layout(const Scenario& scenario);
/// The same from each group's layer time (group_layer_seconds), for a caller that reuses them
/// across splits with the same layer (the planner).
[[nodiscard]] std::vector<std::int64_t> speed_layout(const Scenario& scenario, const std::vector<double>& layer_s);
/// One middle layer's kernel time (forward and backward, communication free) on each group's GPU,
/// in the pool's order, seconds: what balance "speed" weighs stages by.
[[nodiscard]] std::vector<double> group_layer_seconds(const Scenario& scenario);

/// Whether a group of the pool names its own server (fabric::NodeGroupSpec::server).
[[nodiscard]] bool has_group_servers(const NodePool& pool);
/// InputError naming the scenario when `shared` (the step replayed on one flow fabric) on a
/// multi-site build, or `repriced` (ops priced again where their groups sit, on the file's
/// server), would lose a group's own server.
void check_group_servers_priced(const Scenario& scenario, bool shared, bool repriced);

/// The cluster a built fabric of the job is made from: its node groups in the pool's order, so
/// that each group's own server lies on the nodes its ranks fill (fabric/fabric.hpp); the
/// scenario's cluster as it is when no group has its own server.
[[nodiscard]] fabric::ClusterSpec pool_build(const Scenario& scenario);
/// What tells apart pool_build's builds of one cluster file (empty without group servers): a
/// cache of built fabrics keys them by the cluster's key and this.
[[nodiscard]] std::string pool_build_key(const Scenario& scenario);

/// What apply_pool priced on the groups' own servers, for a replay that puts the ops' traffic
/// on a built fabric (shared_fabric.hpp): the plans must be those the times came from.
struct PoolComm {
  std::vector<std::unique_ptr<CollectiveTimes>> servers;  ///< one per group with its own server
  /// Per pipeline stage, the pricing its ops came from (null: the build's); empty without group servers.
  std::vector<CollectiveTimes*> stage_plans;
};

/// Replaces each stage of `work` (built for scenario.gpu) by the same stage built for its slowest
/// GPU kind, its collectives priced on that group's own server where it has one; in a stage
/// spanning groups of different servers each collective takes its longest time among them.
/// With group servers, each stage's pipeline send is priced on its groups' servers too
/// (StepWork::p2p_on_stage, the slowest of them). `kept`: receives the groups' pricing.
void apply_pool(StepWork& work, const Scenario& scenario, CollectiveTimes& comm, PoolComm* kept = nullptr);

/// Whether every stage of `memory` (memory_per_stage, in stage order) fits each of its groups' GPUs.
[[nodiscard]] bool pool_fits_memory(const Scenario& scenario, const std::vector<workload::MemoryBreakdown>& memory);

/// Sum of the dense peaks (`dtype`) of the job's GPUs, group by group (FLOP/s): the MFU's denominator.
[[nodiscard]] double pool_peak(const Scenario& scenario, compute::Dtype dtype);

}  // namespace ctwin::replay
