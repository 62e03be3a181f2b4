#include "ctwin/fabric/topologies/fat_tree.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "ctwin/core/error.hpp"
#include "ctwin/core/int_math.hpp"
#include "ctwin/core/json_reader.hpp"
#include "ctwin/fabric/build_checks.hpp"
#include "ctwin/fabric/ecmp_hash.hpp"
#include "ctwin/fabric/fabric.hpp"
#include "ctwin/fabric/summary.hpp"

namespace ctwin::fabric {
namespace {

constexpr int kMaxFatTreeCount = 1 << 16;

std::optional<int> leaf_index(std::string_view text) {
  int value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < 0) return std::nullopt;
  return value;
}

// "leaf3.up5" -> (3, 5) for prefix "leaf" and middle ".up".
std::optional<std::pair<int, int>> leaf_indices(std::string_view text, std::string_view prefix, std::string_view middle) {
  if (text.substr(0, prefix.size()) != prefix) return std::nullopt;
  text.remove_prefix(prefix.size());
  const std::size_t at = text.find(middle);
  if (at == std::string_view::npos) return std::nullopt;
  const auto first = leaf_index(text.substr(0, at));
  const auto second = leaf_index(text.substr(at + middle.size()));
  if (!first || !second) return std::nullopt;
  return std::pair{*first, *second};
}

// Rail-grouped spines split the leaves of each scalable unit by rail group, so there must be
// more than one group and each group's leaves must fit under one spine's downlinks.
void read_spine_groups(JsonObjectReader& reader, const ServerSpec& server, FabricSpec& fabric) {
  fabric.spine_groups =
      reader.choice_or("spine_groups", {"shared", "per_rail"}, "shared") == "per_rail" ? SpineGroups::kPerRail
                                                                                      : SpineGroups::kShared;
  if (!reader.has("leaves_per_spine_group")) {
    (void)reader.optional("leaves_per_spine_group");
  } else if (fabric.spine_groups != SpineGroups::kPerRail) {
    reader.fail("leaves_per_spine_group", "only means something with spine_groups per_rail; "
                                          "--set fabric.leaves_per_spine_group=null drops it");
  } else {
    fabric.leaves_per_spine_group = static_cast<int>(reader.integer("leaves_per_spine_group", 1, kMaxFatTreeCount));
  }
  if (fabric.spine_groups != SpineGroups::kPerRail) return;
  const int groups = server.nics.count / fabric.rails_per_leaf;
  if (groups < 2) {
    reader.fail("spine_groups", "per_rail needs at least two rail groups per scalable unit, but rails_per_leaf " +
                                    std::to_string(fabric.rails_per_leaf) + " puts all " +
                                    std::to_string(server.nics.count) + " NICs of a node on one leaf");
  }
  const double ratio = fabric.spine_oversubscription;
  const int spine_down = static_cast<int>(std::floor(fabric.switch_spec.ports * ratio / (1 + ratio) + 1e-9));
  if (fabric.leaves_per_spine_group > spine_down) {
    reader.fail("leaves_per_spine_group",
                std::to_string(fabric.leaves_per_spine_group) + " leaves need at least as many spine downlinks, but a " +
                    std::to_string(fabric.switch_spec.ports) + "-port spine that keeps its uplinks (fabric.oversubscription.spine) has " +
                    std::to_string(spine_down));
  }
}

}  // namespace

void read_fat_tree_fields(JsonObjectReader& reader, const ServerSpec& server, FabricSpec& fabric) {
  fabric.kind = fabric.kind_name == "rail_optimized" ? FabricKind::kRailOptimized : FabricKind::kTopOfRack;
  if (auto over = reader.optional_object("oversubscription")) {
    fabric.leaf_oversubscription = over->number_or("leaf", 1, 64, 1);
    fabric.spine_oversubscription = over->number_or("spine", 1, 64, 1);
    over->finish();
  }
  fabric.max_tiers = static_cast<int>(reader.integer_or("max_tiers", 2, 3, 3));
  if (fabric.kind == FabricKind::kRailOptimized) {
    fabric.nodes_per_su = static_cast<int>(reader.integer("nodes_per_su", 1, kMaxFatTreeCount));
    fabric.rails_per_leaf = static_cast<int>(reader.integer_or("rails_per_leaf", 1, kMaxFatTreeCount, 1));
    if (server.nics.count % fabric.rails_per_leaf != 0) {
      reader.fail("rails_per_leaf", std::to_string(fabric.rails_per_leaf) + " does not divide the " +
                                        std::to_string(server.nics.count) + " rails (NICs per server)");
    }
    const int down = fabric.nodes_per_su * fabric.rails_per_leaf;
    if (down >= fabric.switch_spec.ports) {
      reader.fail("nodes_per_su", "a leaf needs " + std::to_string(down) + " downlinks plus uplinks but has " +
                                      std::to_string(fabric.switch_spec.ports) + " ports");
    }
    read_spine_groups(reader, server, fabric);
  } else {
    // Ignored, not refused, so that `--set fabric.kind=top_of_rack` works on any topology;
    // fabric::ignored_fields() names them as build warnings, so nothing is ignored silently.
    (void)reader.optional("nodes_per_su");
    (void)reader.optional("rails_per_leaf");
    for (const char* key : {"spine_groups", "leaves_per_spine_group"}) {
      if (reader.has(key)) {
        reader.fail(key, "only means something with kind rail_optimized (a top-of-rack leaf has no rails); "
                         "--set fabric." + std::string(key) + "=null drops it");
      }
      (void)reader.optional(key);
    }
  }
}

FatTree::FatTree(const ClusterSpec& spec, int nodes) : spec_(spec), plan_(plan_tiers(spec, nodes)) {}

std::vector<TierSize> FatTree::tiers() const {
  const double leaf_ratio = plan_.tiers >= 2 ? static_cast<double>(plan_.leaf_downlinks) / plan_.leaf_uplinks : 1.0;
  const double spine_ratio =
      plan_.tiers == 3 ? static_cast<double>(plan_.leaves_per_pod) * plan_.links_per_leaf_spine() / plan_.spine_uplinks
                       : 1.0;
  return {{"leaf", VertexKind::kLeaf, plan_.leaves, leaf_ratio},
          {"spine", VertexKind::kSpine, plan_.spines(), spine_ratio},
          {"core", VertexKind::kCore, plan_.cores(), 1.0}};
}

long long FatTree::switch_cables() const {
  return static_cast<long long>(plan_.leaves) * plan_.leaf_uplinks * (plan_.tiers >= 2) +
         static_cast<long long>(plan_.spines()) * plan_.spine_uplinks;
}

void FatTree::wire(SwitchWiring& wiring) const {
  const LinkSpec& wire = spec_.fabric.link;
  const int spine0 = plan_.leaves;
  const int core0 = spine0 + plan_.spines();
  if (plan_.tiers >= 2) {
    for (int leaf = 0; leaf < plan_.leaves; ++leaf) {
      const int first_spine = plan_.pod_of_leaf(leaf) * plan_.spines_per_pod;
      for (int k = 0; k < plan_.leaf_uplinks; ++k) {
        wiring.cable(leaf, spine0 + first_spine + k % plan_.spines_per_pod, wire, LinkKind::kLeafSpine);
      }
    }
  }
  for (int spine = 0; spine < plan_.spines(); ++spine) {
    const int plane = spine % plan_.spines_per_pod;
    const int pod = spine / plan_.spines_per_pod;
    for (int k = 0; k < plan_.spine_uplinks; ++k) {
      wiring.cable(spine0 + spine, core0 + plane * plan_.cores_per_plane + plan_.core_of_uplink(pod, k), wire,
                   LinkKind::kSpineCore);
    }
  }
}

bool FatTree::rails_meet_in_node_only(int src_nic, int dst_nic) const {
  const int rails_per_leaf = spec_.fabric.rails_per_leaf;
  return plan_.per_rail && src_nic / rails_per_leaf != dst_nic / rails_per_leaf;
}

void FatTree::append_switch_path(const Fabric& fabric, int leaf_a, int leaf_b, std::uint64_t flow_hash,
                                 std::vector<LinkId>& out) const {
  if (leaf_a == leaf_b) return;
  const TierPlan& plan = plan_;
  const int spines_per_pod = plan.spines_per_pod;
  const int up = ecmp_pick(flow_hash, 0, plan.leaf_uplinks);
  const int plane = up % spines_per_pod;
  out.push_back(leaf_uplink(fabric, leaf_a, up));
  const int pod_a = plan.pod_of_leaf(leaf_a);
  const int pod_b = plan.pod_of_leaf(leaf_b);
  CTWIN_ASSERT(!plan.per_rail || leaf_a % plan.rail_groups == leaf_b % plan.rail_groups,
               "per-rail routes change rails inside the node");
  if (pod_a != pod_b) {
    const int spine_up = ecmp_pick(flow_hash, 1, plan.spine_uplinks);
    const int core = plan.core_of_uplink(pod_a, spine_up);
    out.push_back(spine_uplink(fabric, pod_a * spines_per_pod + plane, spine_up));
    const int down = plan.first_uplink_to_core(pod_b, core) +
                     plan.cores_per_plane * ecmp_pick(flow_hash, 2, plan.uplinks_to_core(pod_b, core));
    out.push_back(reverse(spine_uplink(fabric, pod_b * spines_per_pod + plane, down)));
  }
  const int down = plane + spines_per_pod * ecmp_pick(flow_hash, 3, plan.links_per_leaf_spine());
  out.push_back(reverse(leaf_uplink(fabric, leaf_b, down)));
}

// Every combination of append_switch_path()'s picks, each as likely: a cable's share is the
// product of the shares of the picks that lead to it.
void FatTree::spread_switch_path(const Fabric& fabric, int leaf_a, int leaf_b, std::uint64_t flow_hash,
                                 std::vector<std::pair<LinkId, double>>& out) const {
  (void)flow_hash;
  if (leaf_a == leaf_b) return;
  const TierPlan& plan = plan_;
  const int spines_per_pod = plan.spines_per_pod;
  const int pod_a = plan.pod_of_leaf(leaf_a);
  const int pod_b = plan.pod_of_leaf(leaf_b);
  const double per_up = 1.0 / plan.leaf_uplinks;
  const int per_leaf_spine = plan.links_per_leaf_spine();
  for (int up = 0; up < plan.leaf_uplinks; ++up) {
    const int plane = up % spines_per_pod;
    out.emplace_back(leaf_uplink(fabric, leaf_a, up), per_up);
    if (pod_a != pod_b) {
      for (int spine_up = 0; spine_up < plan.spine_uplinks; ++spine_up) {
        const double per_spine_up = per_up / plan.spine_uplinks;
        const int core = plan.core_of_uplink(pod_a, spine_up);
        out.emplace_back(spine_uplink(fabric, pod_a * spines_per_pod + plane, spine_up), per_spine_up);
        const int downs = plan.uplinks_to_core(pod_b, core);
        for (int k = 0; k < downs; ++k) {
          const int down = plan.first_uplink_to_core(pod_b, core) + plan.cores_per_plane * k;
          out.emplace_back(reverse(spine_uplink(fabric, pod_b * spines_per_pod + plane, down)), per_spine_up / downs);
        }
      }
    }
    for (int k = 0; k < per_leaf_spine; ++k) {
      out.emplace_back(reverse(leaf_uplink(fabric, leaf_b, plane + spines_per_pod * k)), per_up / per_leaf_spine);
    }
  }
}

// One part per leaf uplink: part i climbs uplink i and comes down the (i / spines)-th cable from
// that spine to leaf_b, so the parts of a flow load every leaf uplink and every spine downlink
// to leaf_b equally, as spread_switch_path() does. Between pods, a spine has more uplinks than
// parts through it: those parts take consecutive uplinks (and core downlinks) from a hashed
// start, distinct within the flow but not spread over all of them.
int FatTree::split_switch_paths(int leaf_a, int leaf_b) const {
  return leaf_a == leaf_b || plan_.tiers < 2 ? 1 : plan_.leaf_uplinks;
}

void FatTree::append_split_switch_path(const Fabric& fabric, int leaf_a, int leaf_b, std::uint64_t flow_hash,
                                       int index, std::vector<LinkId>& out) const {
  if (leaf_a == leaf_b) return;
  const TierPlan& plan = plan_;
  const int spines_per_pod = plan.spines_per_pod;
  CTWIN_ASSERT(index >= 0 && index < plan.leaf_uplinks, "a part of the split names a leaf uplink");
  const int plane = index % spines_per_pod;
  const int round = index / spines_per_pod;  // which of this flow's parts through that spine
  out.push_back(leaf_uplink(fabric, leaf_a, index));
  const int pod_a = plan.pod_of_leaf(leaf_a);
  const int pod_b = plan.pod_of_leaf(leaf_b);
  if (pod_a != pod_b) {
    const int spine_up = (ecmp_pick(flow_hash, 1, plan.spine_uplinks) + round) % plan.spine_uplinks;
    const int core = plan.core_of_uplink(pod_a, spine_up);
    out.push_back(spine_uplink(fabric, pod_a * spines_per_pod + plane, spine_up));
    const int downs = plan.uplinks_to_core(pod_b, core);
    const int down = plan.first_uplink_to_core(pod_b, core) +
                     plan.cores_per_plane * ((ecmp_pick(flow_hash, 2, downs) + round) % downs);
    out.push_back(reverse(spine_uplink(fabric, pod_b * spines_per_pod + plane, down)));
  }
  const int down = plane + spines_per_pod * (round % plan.links_per_leaf_spine());
  out.push_back(reverse(leaf_uplink(fabric, leaf_b, down)));
}

std::string FatTree::cable_name(const Fabric& fabric, LinkId even) const {
  const auto in = [](LinkId id, LinkId base, long long count) { return id >= base && id < base + 2 * count; };
  if (plan_.tiers >= 2 && in(even, leaf_uplink(fabric, 0, 0), static_cast<long long>(plan_.leaves) * plan_.leaf_uplinks)) {
    const int slot = static_cast<int>((even - leaf_uplink(fabric, 0, 0)) / 2);
    return "leaf" + std::to_string(slot / plan_.leaf_uplinks) + ".up" + std::to_string(slot % plan_.leaf_uplinks);
  }
  if (plan_.tiers >= 3 &&
      in(even, spine_uplink(fabric, 0, 0), static_cast<long long>(plan_.spines()) * plan_.spine_uplinks)) {
    const int slot = static_cast<int>((even - spine_uplink(fabric, 0, 0)) / 2);
    return "spine" + std::to_string(slot / plan_.spine_uplinks) + ".up" + std::to_string(slot % plan_.spine_uplinks);
  }
  return "";
}

std::optional<LinkId> FatTree::find_cable(const Fabric& fabric, std::string_view name, std::string& problem) const {
  if (const auto up = leaf_indices(name, "leaf", ".up")) {
    if (plan_.tiers < 2 || up->first >= plan_.leaves || up->second >= plan_.leaf_uplinks) {
      problem = "no such leaf uplink in the build";
      return std::nullopt;
    }
    return leaf_uplink(fabric, up->first, up->second);
  }
  if (const auto core = leaf_indices(name, "spine", ".up")) {
    if (plan_.tiers < 3 || core->first >= plan_.spines() || core->second >= plan_.spine_uplinks) {
      problem = "no such spine uplink in the build";
      return std::nullopt;
    }
    return spine_uplink(fabric, core->first, core->second);
  }
  return std::nullopt;
}

std::vector<LinkId> FatTree::uplinks(const Fabric& fabric, int leaf) const {
  std::vector<LinkId> links;
  for (int k = 0; k < plan_.leaf_uplinks; ++k) links.push_back(leaf_uplink(fabric, leaf, k));
  return links;
}

std::optional<int> FatTree::uplink_part_of(const Fabric& fabric, LinkId link) const {
  const Link& l = fabric.link(link);
  if (l.kind != LinkKind::kLeafSpine) return std::nullopt;
  const VertexId leaf = fabric.vertex_kind(l.from) == VertexKind::kLeaf ? l.from : l.to;
  return static_cast<int>(leaf - leaf_vertex(fabric, 0));
}

void FatTree::describe(FabricSummary& summary) const {
  summary.tiers = plan_.tiers;
  summary.pods = plan_.pods;
  if (plan_.per_rail) summary.rail_spine_groups = plan_.rail_groups;
  if (spec_.fabric.kind == FabricKind::kRailOptimized) {
    summary.scalable_units = static_cast<int>(ceil_div(plan_.nodes, spec_.fabric.nodes_per_su));
  }
}

double FatTree::bisection(const Fabric& fabric) const {
  (void)fabric;
  // Halving the nodes, every byte crossing the cut climbs to the top tier in use, so the cut
  // is bounded by half of the injection and by half of each tier's uplink capacity.
  double cut = spec_.server.nics.link.bandwidth.bytes_per_second() * plan_.rails * plan_.nodes;
  const double wire = spec_.fabric.link.bandwidth.bytes_per_second();
  if (plan_.tiers >= 2) cut = std::min(cut, wire * plan_.leaves * plan_.leaf_uplinks);
  if (plan_.tiers == 3) cut = std::min(cut, wire * plan_.spines() * plan_.spine_uplinks);
  return plan_.leaves > 1 ? cut / 2 : 0;
}

std::vector<PairProbe> FatTree::probes(const Fabric& fabric) const {
  std::vector<PairProbe> probes;
  const TierPlan& plan = plan_;
  const int per_node = fabric.gpus_per_node();
  const int gpus = fabric.gpus();
  auto first_gpu_of_node = [&](long long node) { return static_cast<GpuId>(node * per_node); };
  if (plan.nodes < 2) return probes;
  const int gpus_per_rail = per_node / plan.rails;
  const GpuId next_node = first_gpu_of_node(1);
  if (next_node < gpus && fabric.switch_of_nic(0, 0) == fabric.switch_of_nic(1, 0)) {
    probes.push_back({"same rail", 0, next_node, false});
  }
  const GpuId other_rail = next_node + gpus_per_rail;
  if (plan.rails > 1 && other_rail < gpus && fabric.switch_of_nic(0, 0) != fabric.switch_of_nic(1, 1)) {
    probes.push_back({"cross rail", 0, other_rail, false});
    if (spec_.server.nvlink) probes.push_back({"cross rail (PXN)", 0, other_rail, true});
  }
  if (spec_.fabric.kind == FabricKind::kRailOptimized) {
    const GpuId next_su = first_gpu_of_node(spec_.fabric.nodes_per_su);
    if (next_su < gpus && plan.pod_of_leaf(fabric.switch_of_nic(next_su / per_node, 0)) == 0) {
      probes.push_back({"cross SU", 0, next_su, false});
    }
  } else {
    const GpuId next_leaf = first_gpu_of_node(plan.nodes_per_leaf);
    if (next_leaf < gpus && plan.pod_of_leaf(fabric.switch_of_nic(next_leaf / per_node, 0)) == 0) {
      probes.push_back({"cross leaf", 0, next_leaf, false});
    }
  }
  if (plan.tiers == 3 && plan.pods > 1) {
    // First node whose first NIC's leaf sits in another pod (pod 1, or with per-rail spine
    // groups the first pod of the next block of scalable units).
    for (int node = 0; node < plan.nodes; ++node) {
      if (plan.pod_of_leaf(fabric.switch_of_nic(node, 0)) != 0) {
        if (first_gpu_of_node(node) < gpus) probes.push_back({"cross pod", 0, first_gpu_of_node(node), false});
        break;
      }
    }
  }
  return probes;
}

void FatTree::check(std::vector<BuildWarning>& warnings) const { check_fat_tree(spec_, plan_, warnings); }

int FatTree::nodes_per_unit() const {
  return spec_.fabric.kind == FabricKind::kRailOptimized ? spec_.fabric.nodes_per_su : std::max(1, plan_.nodes_per_leaf);
}

VertexId FatTree::leaf_vertex(const Fabric& fabric, int leaf) const { return fabric.switch_vertex(leaf); }
VertexId FatTree::spine_vertex(const Fabric& fabric, int spine) const { return fabric.switch_vertex(plan_.leaves + spine); }
VertexId FatTree::core_vertex(const Fabric& fabric, int core) const {
  return fabric.switch_vertex(plan_.leaves + plan_.spines() + core);
}

LinkId FatTree::leaf_uplink(const Fabric& fabric, int leaf, int k) const {
  return fabric.switch_link(static_cast<long long>(leaf) * plan_.leaf_uplinks + k);
}

LinkId FatTree::spine_uplink(const Fabric& fabric, int spine, int k) const {
  const long long leaf_cables = plan_.tiers >= 2 ? static_cast<long long>(plan_.leaves) * plan_.leaf_uplinks : 0;
  return fabric.switch_link(leaf_cables + static_cast<long long>(spine) * plan_.spine_uplinks + k);
}

const FatTree& fat_tree(const Fabric& fabric) {
  const auto* tree = dynamic_cast<const FatTree*>(&fabric.topology());
  CTWIN_ASSERT(tree != nullptr, "a fat-tree build");
  return *tree;
}

}  // namespace ctwin::fabric
