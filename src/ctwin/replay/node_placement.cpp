#include "ctwin/replay/node_placement.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <utility>

#include "ctwin/core/error.hpp"
#include "ctwin/core/json_reader.hpp"
#include "ctwin/core/limits.hpp"
#include "ctwin/fabric/topology.hpp"

namespace ctwin::replay {
namespace {

using Nodes = std::vector<std::int64_t>;

// SplitMix64 (Steele, Lea, Flood, OOPSLA 2014): a fixed stream for a seed on every platform,
// which the standard distributions do not promise.
class SplitMix {
 public:
  explicit SplitMix(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30U)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27U)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31U);
  }
  // Below `bound` (> 0); the modulo bias is under bound / 2^64, far below anything a map shows.
  std::int64_t below(std::int64_t bound) { return static_cast<std::int64_t>(next() % static_cast<std::uint64_t>(bound)); }

 private:
  std::uint64_t state_;
};

// The free nodes of the build under each leaf, leaves in the order of their lowest node.
struct FreeMap {
  std::vector<Nodes> leaves;        // free nodes of each leaf, ascending
  std::vector<std::int64_t> unit;   // the scalable unit of each leaf
  std::int64_t free = 0;
};

FreeMap free_map(const fabric::Topology& topology, std::int64_t build_nodes, const Nodes& busy) {
  FreeMap map;
  std::map<int, std::size_t> index;  // access switch of NIC 0 → leaf
  const std::set<std::int64_t> taken(busy.begin(), busy.end());
  const std::int64_t per_unit = std::max(1, topology.nodes_per_unit());
  for (std::int64_t n = 0; n < build_nodes; ++n) {
    const int sw = topology.access_switch(static_cast<int>(n), 0);
    auto [it, fresh] = index.emplace(sw, map.leaves.size());
    if (fresh) {
      map.leaves.emplace_back();
      map.unit.push_back(n / per_unit);
    }
    if (taken.contains(n)) continue;
    map.leaves[it->second].push_back(n);
    ++map.free;
  }
  return map;
}

std::size_t free_in(const Nodes& leaf) { return leaf.size(); }

// Leaves of `map` (indices) in `candidates`, fullest first, ties by order.
std::vector<std::size_t> fullest_first(const FreeMap& map, std::vector<std::size_t> candidates) {
  std::stable_sort(candidates.begin(), candidates.end(),
                   [&](std::size_t a, std::size_t b) { return free_in(map.leaves[a]) > free_in(map.leaves[b]); });
  return candidates;
}

// Takes `need` nodes from `map`, fewest leaves then units (greedy, see the header); removes them.
Nodes take_packed(FreeMap& map, std::int64_t need) {
  const auto fits = [need](std::size_t free) { return static_cast<std::int64_t>(free) >= need; };
  std::vector<std::size_t> order;
  // One leaf: the one with the fewest free nodes that still holds the job (best fit).
  std::optional<std::size_t> best_leaf;
  for (std::size_t l = 0; l < map.leaves.size(); ++l) {
    if (fits(free_in(map.leaves[l])) && (!best_leaf || free_in(map.leaves[l]) < free_in(map.leaves[*best_leaf]))) best_leaf = l;
  }
  if (best_leaf) {
    order.push_back(*best_leaf);
  } else {
    std::map<std::int64_t, std::size_t> unit_free;
    for (std::size_t l = 0; l < map.leaves.size(); ++l) unit_free[map.unit[l]] += free_in(map.leaves[l]);
    std::optional<std::int64_t> best_unit;
    for (const auto& [u, free] : unit_free) {
      if (fits(free) && (!best_unit || free < unit_free[*best_unit])) best_unit = u;
    }
    std::vector<std::int64_t> units;
    if (best_unit) {
      units.push_back(*best_unit);
    } else {
      for (const auto& [u, free] : unit_free) units.push_back(u);
      std::stable_sort(units.begin(), units.end(), [&](auto a, auto b) { return unit_free[a] > unit_free[b]; });
    }
    for (const std::int64_t u : units) {
      std::vector<std::size_t> in_unit;
      for (std::size_t l = 0; l < map.leaves.size(); ++l) {
        if (map.unit[l] == u) in_unit.push_back(l);
      }
      for (const std::size_t l : fullest_first(map, in_unit)) order.push_back(l);
    }
  }
  Nodes out;
  for (const std::size_t l : order) {
    Nodes& leaf = map.leaves[l];
    const auto take = std::min<std::int64_t>(need - static_cast<std::int64_t>(out.size()), static_cast<std::int64_t>(leaf.size()));
    out.insert(out.end(), leaf.begin(), leaf.begin() + take);
    leaf.erase(leaf.begin(), leaf.begin() + take);
    if (static_cast<std::int64_t>(out.size()) == need) break;
  }
  map.free -= static_cast<std::int64_t>(out.size());
  return out;
}

Nodes take_spread(const FreeMap& map, std::int64_t need) {
  Nodes out;
  for (std::size_t depth = 0; static_cast<std::int64_t>(out.size()) < need; ++depth) {
    for (const Nodes& leaf : map.leaves) {
      if (depth < leaf.size() && static_cast<std::int64_t>(out.size()) < need) out.push_back(leaf[depth]);
    }
  }
  return out;
}

Nodes take_first_fit(const FreeMap& map, std::int64_t need) {
  Nodes all;
  for (const Nodes& leaf : map.leaves) all.insert(all.end(), leaf.begin(), leaf.end());
  std::sort(all.begin(), all.end());
  all.resize(static_cast<std::size_t>(need));
  return all;
}

// Stage by stage, each packed on what the stages before it left. Only where stages hold whole
// nodes of their own; otherwise the job is packed as one.
Nodes take_topology_aware(FreeMap& map, std::int64_t need, std::int64_t stage_nodes) {
  if (stage_nodes <= 0 || need % stage_nodes != 0) return take_packed(map, need);
  Nodes out;
  for (std::int64_t s = 0; s < need / stage_nodes; ++s) {
    const Nodes stage = take_packed(map, stage_nodes);
    out.insert(out.end(), stage.begin(), stage.end());
  }
  return out;
}

Nodes read_node_list(const nlohmann::json& list, const std::string& source) {
  if (!list.is_array() || list.empty()) {
    throw InputError(source, "/placement/nodes", "expected a list of the build's nodes the job takes, in rank order");
  }
  Nodes nodes;
  std::set<std::int64_t> seen;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const auto& n = list[i];
    if (!n.is_number_integer() || n.get<std::int64_t>() < 0 || n.get<std::int64_t>() >= limits::kMaxGpus) {
      throw InputError(source, "/placement/nodes/" + std::to_string(i),
                       "expected a node index from 0 to " + std::to_string(limits::kMaxGpus - 1));
    }
    if (!seen.insert(n.get<std::int64_t>()).second) {
      throw InputError(source, "/placement/nodes/" + std::to_string(i),
                       "node " + std::to_string(n.get<std::int64_t>()) + " is listed twice");
    }
    nodes.push_back(n.get<std::int64_t>());
  }
  return nodes;
}

}  // namespace

std::optional<PlacementPolicy> node_policy_named(const std::string& name) {
  if (name == "packed") return PlacementPolicy::kPacked;
  if (name == "spread") return PlacementPolicy::kSpread;
  if (name == "topology_aware") return PlacementPolicy::kTopologyAware;
  if (name == "fragmented") return PlacementPolicy::kFragmented;
  return std::nullopt;
}

PlacementSpec read_node_placement(const nlohmann::json& value, const std::string& source) {
  JsonObjectReader reader(value, source, "/placement");
  PlacementSpec spec;
  spec.named = true;
  spec.build_nodes = reader.integer_or("build_nodes", 1, limits::kMaxGpus, 0);
  if (const auto* nodes = reader.optional("nodes")) {
    if (reader.has("policy") || reader.has("fragmentation") || reader.has("seed")) {
      throw InputError(source, "/placement/nodes", "an explicit node list takes no policy, fragmentation or seed");
    }
    spec.policy = PlacementPolicy::kNodes;
    spec.nodes = read_node_list(*nodes, source);
  } else {
    const auto name = reader.choice("policy", {"packed", "spread", "topology_aware", "fragmented"});
    spec.policy = *node_policy_named(name);
    // Below 1: a build with every node busy holds no job.
    spec.fragmentation = reader.number_or("fragmentation", 0, 0.99, 0);
    spec.seed = static_cast<std::uint64_t>(reader.integer_or("seed", 0, limits::kMaxGpus, 1));
  }
  reader.finish();
  return spec;
}

Nodes busy_nodes(std::int64_t build_nodes, double fragmentation, std::uint64_t seed) {
  const auto count = static_cast<std::int64_t>(std::llround(fragmentation * static_cast<double>(build_nodes)));
  // The first `count` of a Fisher-Yates shuffle of the build's nodes.
  Nodes all(static_cast<std::size_t>(build_nodes));
  for (std::int64_t n = 0; n < build_nodes; ++n) all[static_cast<std::size_t>(n)] = n;
  SplitMix random(seed);
  for (std::int64_t i = 0; i < count; ++i) {
    const std::int64_t j = i + random.below(build_nodes - i);
    std::swap(all[static_cast<std::size_t>(i)], all[static_cast<std::size_t>(j)]);
  }
  all.resize(static_cast<std::size_t>(count));
  std::sort(all.begin(), all.end());
  return all;
}

Placement place_on_nodes(const PlacementSpec& spec, std::int64_t ranks, std::int64_t block, std::int64_t stage_ranks,
                         const fabric::ClusterSpec& cluster, const std::string& source) {
  const std::int64_t domain = std::max(1, cluster.server.gpus);
  // The job's own layout on nodes 0, 1, ... (domain-aligned), then moved node by node.
  const Placement aligned(PlacementSpec{}, ranks, block, domain, source);
  const std::int64_t need = aligned.domains();
  std::int64_t build = spec.build_nodes;
  if (spec.policy == PlacementPolicy::kNodes) {
    if (static_cast<std::int64_t>(spec.nodes.size()) != need) {
      throw InputError(source, "/placement/nodes", "lists " + std::to_string(spec.nodes.size()) + " nodes for a job on " +
                                                       std::to_string(need) + " nodes of " + std::to_string(domain) + " GPUs");
    }
    const std::int64_t highest = *std::max_element(spec.nodes.begin(), spec.nodes.end());
    if (build == 0) build = highest + 1;
    for (std::size_t i = 0; i < spec.nodes.size(); ++i) {
      if (spec.nodes[i] >= build) {
        throw InputError(source, "/placement/nodes/" + std::to_string(i),
                         "node " + std::to_string(spec.nodes[i]) + " is beyond the build of " + std::to_string(build) + " nodes");
      }
    }
  }
  if (build == 0) build = need;
  if (build < need) {
    throw InputError(source, "/placement/build_nodes", "a build of " + std::to_string(build) + " nodes cannot hold a job on " +
                                                           std::to_string(need) + " nodes of " + std::to_string(domain) + " GPUs");
  }
  if (build * domain > limits::kMaxGpus) {
    throw InputError(source, "/placement/build_nodes", "a build of " + std::to_string(build) + " nodes is beyond any ctwin models");
  }
  const auto topology = fabric::plan_topology(cluster, static_cast<int>(build));
  Nodes busy = busy_nodes(build, spec.fragmentation, spec.seed);
  if (!spec.taken.empty()) {
    std::set<std::int64_t> all(busy.begin(), busy.end());
    all.insert(spec.taken.begin(), spec.taken.end());
    busy.assign(all.begin(), all.end());
  }
  FreeMap map = free_map(*topology, build, busy);
  if (map.free < need) {
    throw InputError(source, "/placement", std::string(placement_name(spec.policy)) + " cannot place a job of " +
                                               std::to_string(need) + " nodes: " + std::to_string(map.free) + " of the build's " +
                                               std::to_string(build) + " nodes are free");
  }
  Nodes chosen;
  switch (spec.policy) {
    case PlacementPolicy::kPacked: chosen = take_packed(map, need); break;
    case PlacementPolicy::kSpread: chosen = take_spread(map, need); break;
    case PlacementPolicy::kTopologyAware: {
      // Stages hold whole nodes of their own when their ranks fill whole units of the layout.
      const std::int64_t per_node = ranks / std::max<std::int64_t>(1, need);
      const bool whole = per_node > 0 && stage_ranks % per_node == 0 && ranks % per_node == 0;
      chosen = take_topology_aware(map, need, whole ? stage_ranks / per_node : 0);
      break;
    }
    case PlacementPolicy::kFragmented: chosen = take_first_fit(map, need); break;
    default: chosen = spec.nodes; break;
  }
  PlacementSpec list;
  list.policy = PlacementPolicy::kExplicit;
  list.gpus.resize(static_cast<std::size_t>(ranks));
  for (std::int64_t r = 0; r < ranks; ++r) {
    const std::int64_t g = aligned.gpu(r);
    list.gpus[static_cast<std::size_t>(r)] = chosen[static_cast<std::size_t>(g / domain)] * domain + g % domain;
  }
  Placement placed(list, ranks, block, domain, source);
  NodeFootprint footprint;
  footprint.build_nodes = build;
  footprint.busy_nodes = static_cast<std::int64_t>(busy.size());
  footprint.nodes = need;
  std::set<int> leaves;
  std::set<std::int64_t> units;
  const std::int64_t per_unit = std::max(1, topology->nodes_per_unit());
  for (const std::int64_t n : chosen) {
    for (int nic = 0; nic < cluster.server.nics.count; ++nic) leaves.insert(topology->access_switch(static_cast<int>(n), nic));
    units.insert(n / per_unit);
  }
  footprint.leaves = static_cast<std::int64_t>(leaves.size());
  footprint.scalable_units = static_cast<std::int64_t>(units.size());
  footprint.node_list = std::move(chosen);
  placed.chosen_by(spec.policy, std::move(footprint));
  return placed;
}

}  // namespace ctwin::replay
