#pragma once
// The fat-tree family behind the topology seam: leaf/spine/core folded Clos, rail-optimized or
// top of rack, with shared or per-rail spine groups (fabric/builders/tier_plan.hpp plans the counts).
// Switches: leaves, spines (pod-major), cores (plane-major). Switch cables: leaf uplinks
// (leaf-major), then spine uplinks (spine-major).

#include "ctwin/fabric/builders/tier_plan.hpp"
#include "ctwin/fabric/topology.hpp"

namespace ctwin::fabric {

class FatTree final : public Topology {
 public:
  FatTree(const ClusterSpec& spec, int nodes);

  [[nodiscard]] const TierPlan& plan() const { return plan_; }

  [[nodiscard]] int nodes() const override { return plan_.nodes; }
  [[nodiscard]] int levels() const override { return plan_.tiers; }
  [[nodiscard]] std::vector<TierSize> tiers() const override;
  [[nodiscard]] long long switch_cables() const override;
  void wire(SwitchWiring& wiring) const override;
  [[nodiscard]] int access_switch(int node, int nic) const override { return leaf_of(spec_, plan_, node, nic); }
  [[nodiscard]] bool rails_meet_in_node_only(int src_nic, int dst_nic) const override;
  void append_switch_path(const Fabric& fabric, int from, int to, std::uint64_t flow_hash,
                          std::vector<LinkId>& out) const override;
  void spread_switch_path(const Fabric& fabric, int leaf_a, int leaf_b, std::uint64_t flow_hash,
                          std::vector<std::pair<LinkId, double>>& out) const override;
  [[nodiscard]] int split_switch_paths(int leaf_a, int leaf_b) const override;
  void append_split_switch_path(const Fabric& fabric, int leaf_a, int leaf_b, std::uint64_t flow_hash, int index,
                                std::vector<LinkId>& out) const override;

  [[nodiscard]] std::string cable_name(const Fabric& fabric, LinkId even) const override;
  [[nodiscard]] std::optional<LinkId> find_cable(const Fabric& fabric, std::string_view name,
                                                 std::string& problem) const override;
  [[nodiscard]] std::string cable_forms() const override { return "leafL.upK or spineS.upK"; }
  [[nodiscard]] int uplink_parts() const override { return plan_.tiers >= 2 ? plan_.leaves : 0; }
  [[nodiscard]] std::vector<LinkId> uplinks(const Fabric& fabric, int leaf) const override;
  [[nodiscard]] std::optional<int> uplink_part_of(const Fabric& fabric, LinkId link) const override;

  void describe(FabricSummary& summary) const override;
  [[nodiscard]] double bisection(const Fabric& fabric) const override;
  [[nodiscard]] std::vector<PairProbe> probes(const Fabric& fabric) const override;
  void check(std::vector<BuildWarning>& warnings) const override;

  [[nodiscard]] int nodes_per_unit() const override;
  [[nodiscard]] bool rail_aligned() const override { return spec_.fabric.kind == FabricKind::kRailOptimized; }
  [[nodiscard]] int nodes_per_access_switch() const override { return plan_.nodes_per_leaf; }

  // The fixed layout, for tests and tools that look at one cable.
  [[nodiscard]] VertexId leaf_vertex(const Fabric& fabric, int leaf) const;
  [[nodiscard]] VertexId spine_vertex(const Fabric& fabric, int spine) const;
  [[nodiscard]] VertexId core_vertex(const Fabric& fabric, int core) const;
  [[nodiscard]] LinkId leaf_uplink(const Fabric& fabric, int leaf, int k) const;
  [[nodiscard]] LinkId spine_uplink(const Fabric& fabric, int spine, int k) const;

 private:
  ClusterSpec spec_;
  TierPlan plan_;
};

/// The fat tree a build of a fat-tree kind was planned as (asserts the kind).
[[nodiscard]] const FatTree& fat_tree(const Fabric& fabric);

/// Reads rail_optimized's and top_of_rack's own fields (TopologyKind::read).
void read_fat_tree_fields(JsonObjectReader& reader, const ServerSpec& server, FabricSpec& fabric);

}  // namespace ctwin::fabric
