// The fabric kinds ctwin builds, by the topology file's fabric.kind. Adding a kind: its
// Topology in topologies/, one line here, its switch in the parts catalog (docs/extending.md).

#include "ctwin/core/error.hpp"
#include "ctwin/fabric/topologies/dragonfly.hpp"
#include "ctwin/fabric/topologies/fat_tree.hpp"
#include "ctwin/fabric/topologies/multi_site.hpp"
#include "ctwin/fabric/topologies/plane_clos.hpp"
#include "ctwin/fabric/topology.hpp"

namespace ctwin::fabric {
namespace {

std::unique_ptr<Topology> plan_fat_tree(const ClusterSpec& spec, int nodes) {
  return std::make_unique<FatTree>(spec, nodes);
}

}  // namespace

const std::vector<TopologyKind>& topology_kinds() {
  static const std::vector<TopologyKind> kKinds{
      {"rail_optimized", read_fat_tree_fields, plan_fat_tree},
      {"top_of_rack", read_fat_tree_fields, plan_fat_tree},
      {"dragonfly", read_dragonfly_fields, plan_dragonfly},
      {"dual_plane", read_dual_plane_fields, plan_plane_clos},
      {"multi_zone", read_multi_zone_fields, plan_plane_clos},
  };
  return kKinds;
}

std::vector<std::string> topology_kind_names() {
  std::vector<std::string> names;
  for (const TopologyKind& kind : topology_kinds()) names.emplace_back(kind.name);
  return names;
}

std::unique_ptr<Topology> plan_topology(const ClusterSpec& spec, int nodes) {
  for (const TopologyKind& kind : topology_kinds()) {
    if (spec.fabric.kind_name != kind.name) continue;
    if (!spec.fabric.sites) return kind.plan(spec, nodes);
    // Sites wrap any kind: each site is the kind's plan for an even share of the nodes.
    const int per_site = static_cast<int>((static_cast<long long>(nodes) + spec.fabric.sites->count - 1) /
                                          spec.fabric.sites->count);
    return std::make_unique<MultiSite>(spec, nodes, kind.plan(spec, per_site));
  }
  throw InputError(spec.file, "/fabric/kind", "unknown fabric kind '" + spec.fabric.kind_name + "'");
}

}  // namespace ctwin::fabric
