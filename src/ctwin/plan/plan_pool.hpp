#pragma once
// `ctwin plan` on a heterogeneous pool (docs/heterogeneous.md, "Planning on a pool").
//
// Memory per group: a pool's pipeline stages sit on their own groups' GPUs (replay/node_pool.hpp),
// so a stage must fit the HBM of every group it touches, not the server's GPU. The space is
// enumerated against the largest HBM among the groups (a split whose even stages do not fit there
// fits no group), then each candidate's stages are checked against their own groups
// (rule "pool.memory").
//
// The assignment: where the groups hold more than one GPU kind, the planner also chooses which
// group takes which pipeline stages and how layers are shared. Ranks fill the groups in their
// order from node 0 (Megatron's rank order puts stage s on ranks [s·S, (s+1)·S)), so each order of
// the groups gives each group a contiguous range of stages; with k groups there are k! orders, each
// with balance "even" or "speed": 2·k! assignments per split, enumerated split by split, the
// scenario's own order first and even before speed. Per split and assignment:
//   pool.balance    "speed" with the embedding and loss slots of the pipeline split (the layout is speed's)
//   pool.memory     a stage that does not fit a group it sits on (with the speed layout for "speed")
//   pool.duplicate  the same GPU kinds per stage and the same layers per stage as an earlier
//                   assignment of the split: the same step (the nodes are the same, only their
//                   kinds follow the order), listed once
// A pool of one GPU kind has nothing to assign: it plans as the homogeneous build.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "ctwin/compute/gpu_spec.hpp"
#include "ctwin/plan/plan_space.hpp"
#include "ctwin/replay/scenario.hpp"

namespace ctwin::api {

/// The GPU the space's memory rule checks: `base`'s own without a pool, else the pool's group GPU
/// with the most HBM (the first among equals).
[[nodiscard]] const compute::GpuSpec& plan_memory_gpu(const replay::Scenario& base);

/// Drops the survivors one of whose stages does not fit a group it sits on (its GPUs' HBM less
/// `margin`), counted under the rule "pool.memory" with the first one's message (stage, GiB,
/// group), and numbers the rest again. Nothing is checked without a pool.
void drop_pool_unfit(PlanSpace& space, const replay::Scenario& base, double margin);

/// `base` once per assignment (its pool's groups reordered, its balance set), in the order of the
/// file comment; empty when the pool holds fewer than two GPU kinds (nothing to search).
[[nodiscard]] std::vector<replay::Scenario> pool_assignments(const replay::Scenario& base);

/// The space's splits times the `assigned` scenarios: the enumerated count and every rule's count
/// multiplied by the assignments (a split removed is removed under each), then the rules of the
/// file comment; survivors carry their assignment and, for "speed", their layout in
/// split.pipeline_layout, numbered again.
void expand_pool_assignments(PlanSpace& space, const std::vector<replay::Scenario>& assigned, double margin);

/// What a result says of its assignment: the groups in the order they take the ranks, the balance,
/// and for "speed" the layers per virtual stage.
struct PlanPoolChoice {
  std::vector<std::string> order;
  std::string balance;
  std::vector<std::int64_t> layers;
  /// Micro-batches per DP replica where balance "speed" gives them unequal shares (the step
  /// report's dp_shares, replay/dp_shares.hpp); empty where every replica takes the same.
  std::vector<std::int64_t> dp_micro_batches;
};
[[nodiscard]] PlanPoolChoice pool_choice_of(const replay::Scenario& assigned, const workload::ParallelConfig& split);

}  // namespace ctwin::api
