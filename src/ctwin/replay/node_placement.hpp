#pragma once
// Node policies: which nodes of a build a job takes (docs/cluster.md, "Placement policies").
//
// The build has `build_nodes` nodes of the scenario's cluster (default: just the job's); a share
// `fragmentation` of them is busy with other tenants, drawn uniformly with `seed` (SplitMix64, so
// that the same seed gives the same map on every platform). Of the free nodes:
//   - packed: fewest leaves, then fewest scalable units. Greedy: the fullest-fitting (best-fit)
//     leaf when one holds the job, else the best-fit unit taking its leaves fullest first, else
//     units and their leaves fullest first. Exactly fewest leaves only in the first two cases.
//   - spread: round-robin over the leaves, so consecutive nodes sit under different leaves.
//   - topology_aware: each pipeline stage (its TP, CP and DP groups) under one leaf where a leaf
//     can hold it, else in one unit, so DP rings climb no spine; TP stays inside nodes
//     (domain-aligned) and a rail-optimized build keeps equal local ranks on one rail by wiring.
//   - fragmented: the lowest-numbered free nodes, as a topology-blind first-fit scheduler gives.
//   - nodes: the scenario lists them.
// A "leaf" groups the nodes whose NIC 0 plugs into the same access switch (a rail-optimized
// unit's nodes all do); ranks then sit domain-aligned on the chosen nodes in the order chosen.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ctwin/fabric/cluster_spec.hpp"
#include "ctwin/replay/placement.hpp"

namespace ctwin::replay {

/// The forms a scenario's "placement" may take, for error messages.
inline constexpr const char* kPlacementForms =
    "domain_aligned, contiguous, packed, spread, topology_aware, fragmented, {\"gpus\": [...]}, {\"nodes\": [...]} "
    "or {\"policy\", \"build_nodes\", \"fragmentation\", \"seed\"}";

/// The node policy called `name`, if one is.
[[nodiscard]] std::optional<PlacementPolicy> node_policy_named(const std::string& name);

/// Reads {"policy", "build_nodes", "fragmentation", "seed"} or {"nodes", "build_nodes"}; InputError
/// naming `source` and the field.
[[nodiscard]] PlacementSpec read_node_placement(const nlohmann::json& value, const std::string& source);

/// The busy nodes of a build of `build_nodes` at `fragmentation` with `seed`: round(f · nodes) of
/// them, drawn without replacement. Sorted.
[[nodiscard]] std::vector<std::int64_t> busy_nodes(std::int64_t build_nodes, double fragmentation, std::uint64_t seed);

/// `spec` (a node policy) for a job of `ranks` ranks in NVLink blocks of `block`, whose pipeline
/// stages are `stage_ranks` consecutive ranks, on `cluster`. InputError naming `source`
/// /placement/... when the build cannot hold the job or the spec does not fit it.
[[nodiscard]] Placement place_on_nodes(const PlacementSpec& spec, std::int64_t ranks, std::int64_t block,
                                       std::int64_t stage_ranks, const fabric::ClusterSpec& cluster,
                                       const std::string& source);

}  // namespace ctwin::replay
