#pragma once
// Where a job's ranks sit on the cluster's GPUs (docs/training-step.md, "Placement").
//
// Ranks follow Megatron-LM's order (comm_groups.hpp): global rank = stage · stage_gpus + the
// stage-local rank, and the groups that want NVLink (TP, CP, expert TP, EP) are runs of
// consecutive ranks inside blocks of B = lcm(tp·cp, expert_tp·ep) ranks. A node of the cluster
// is one NVLink domain (8 GPUs of a DGX, 72 of an NVL72 rack).
//
//   - contiguous: rank r on GPU r, nodes filled in order. Where B does not divide a domain
//     (EP 64 on 72-GPU racks) blocks straddle two domains and their all-to-alls cross the
//     network.
//   - domain_aligned (the default): as many whole blocks per domain as fit, floor(D / B) · B
//     ranks per domain of D GPUs, the rest of the domain idle (64 of 72 for EP 64, as GB200 jobs
//     are run); a block larger than a domain starts on a domain boundary and takes
//     ceil(B / D) domains. Where B divides D (or D divides B) this is the contiguous placement.
//   - explicit: the scenario lists the GPU of every rank.
//   - node policies (node_placement.hpp): packed, spread, topology_aware, fragmented and an
//     explicit node list choose which nodes of a build (maybe larger than the job, maybe partly
//     busy) the job takes; ranks are laid out domain-aligned on those nodes in the order chosen.
//
// What is placed is the rank-to-GPU map; the shared-fabric replay puts each rank's traffic on
// its GPU, and the isolated replay prices each group on the nodes its members really occupy
// (CollectiveTimes::placed_time).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ctwin::replay {

enum class PlacementPolicy { kDomainAligned, kContiguous, kExplicit, kPacked, kSpread, kTopologyAware, kFragmented, kNodes };

/// Whether `policy` chooses nodes of a build (node_placement.hpp) rather than mapping ranks to GPUs.
[[nodiscard]] constexpr bool chooses_nodes(PlacementPolicy policy) { return policy >= PlacementPolicy::kPacked; }

/// A scenario's "placement": "domain_aligned" (default), "contiguous", {"gpus": [...]}, a node
/// policy by name or {"policy", "build_nodes", "fragmentation", "seed"}, or {"nodes": [...]}.
struct PlacementSpec {
  PlacementPolicy policy = PlacementPolicy::kDomainAligned;
  bool named = false;             ///< the scenario gave a placement (the report then says it)
  std::vector<std::int64_t> gpus;  ///< explicit: the cluster GPU of rank r
  std::vector<std::int64_t> nodes;  ///< kNodes: the build's nodes the job takes, in rank order
  std::int64_t build_nodes = 0;     ///< node policies: nodes of the build (0: the job's own)
  double fragmentation = 0;         ///< node policies: share of the build's nodes busy with others
  std::uint64_t seed = 1;           ///< which nodes are busy (the same seed, the same map)
  /// Node policies: nodes held besides the drawn ones (other jobs of `ctwin cluster`, cluster_replay.hpp).
  std::vector<std::int64_t> taken;
};

/// Where a node policy put the job on its build (reported only for those policies).
struct NodeFootprint {
  std::int64_t build_nodes = 0;
  std::int64_t busy_nodes = 0;  ///< taken by others before the job was placed
  std::int64_t nodes = 0;       ///< the job's
  std::int64_t leaves = 0;      ///< access switches the job's NICs plug into
  std::int64_t scalable_units = 0;  ///< the build's repeating units (Topology::nodes_per_unit) it touches
  std::vector<std::int64_t> node_list;  ///< the job's nodes, in rank order
};

/// Reads the scenario's "placement" value; InputError naming `source` and /placement.
[[nodiscard]] PlacementSpec read_placement(const nlohmann::json& value, const std::string& source);
[[nodiscard]] const char* placement_name(PlacementPolicy policy);

class Placement {
 public:
  /// Identity placement of one rank: what a report holds before the step says where its ranks sat.
  Placement() : Placement(1) {}
  /// Identity placement of `ranks` ranks.
  explicit Placement(std::int64_t ranks);
  /// `spec` for a job of `ranks` ranks whose NVLink-bound blocks are `block` ranks, on domains of
  /// `domain_gpus` GPUs. InputError naming `source` /placement for an explicit list that does not
  /// give one distinct GPU to every rank.
  Placement(const PlacementSpec& spec, std::int64_t ranks, std::int64_t block, std::int64_t domain_gpus,
            const std::string& source);

  /// The cluster GPU of global rank `rank` (stage · stage_gpus + stage-local rank).
  [[nodiscard]] std::int64_t gpu(std::int64_t rank) const {
    if (!gpus_.empty()) return gpus_[static_cast<std::size_t>(rank)];
    return rank / unit_ranks_ * unit_gpus_ + rank % unit_ranks_;
  }
  [[nodiscard]] bool identity() const { return identity_; }
  [[nodiscard]] PlacementPolicy policy() const { return policy_; }
  [[nodiscard]] bool named() const { return named_; }
  [[nodiscard]] std::int64_t ranks() const { return ranks_; }
  /// GPUs a build needs to hold every rank: the highest GPU used, plus one.
  [[nodiscard]] std::int64_t cluster_gpus() const { return cluster_gpus_; }
  [[nodiscard]] std::int64_t block() const { return block_; }
  [[nodiscard]] std::int64_t domain_gpus() const { return domain_gpus_; }
  /// Domains holding at least one rank.
  [[nodiscard]] std::int64_t domains() const { return domains_; }
  /// GPUs of those domains that hold no rank (the spares of a domain-aligned job).
  [[nodiscard]] std::int64_t idle_gpus() const { return domains_ * domain_gpus_ - ranks_; }
  /// Groups of `block` ranks that span more than one domain.
  [[nodiscard]] std::int64_t straddling_blocks() const { return straddling_; }
  /// Node policies only: the build and the nodes, leaves and units the job took.
  [[nodiscard]] const NodeFootprint* footprint() const { return footprint_ ? &*footprint_ : nullptr; }
  /// Makes an explicit placement the outcome of node policy `policy` on `footprint`'s build, whose
  /// GPUs the fabric then holds (node_placement.cpp).
  void chosen_by(PlacementPolicy policy, NodeFootprint footprint);

 private:
  void finish();

  PlacementPolicy policy_ = PlacementPolicy::kContiguous;
  bool named_ = false;
  bool identity_ = true;
  std::int64_t ranks_ = 1;
  std::int64_t block_ = 1;
  std::int64_t domain_gpus_ = 1;
  std::int64_t cluster_gpus_ = 1;
  std::int64_t domains_ = 1;
  std::int64_t straddling_ = 0;
  // Aligned and contiguous: every unit_gpus_ GPUs (whole domains) hold unit_ranks_ ranks.
  std::int64_t unit_ranks_ = 1;
  std::int64_t unit_gpus_ = 1;
  std::vector<std::int64_t> gpus_;  // explicit only
  std::optional<NodeFootprint> footprint_;
};

}  // namespace ctwin::replay
