#pragma once
// Zoned Clos planes behind the topology seam: zones (HPN's pods, Meta's AI zones) of two-tier
// Clos, leaf and spine, joined by a core tier whose spine uplinks are oversubscribed, built as
// one or two independent planes. Two kinds share it (plane_clos_fields.cpp reads them):
//  - dual_plane (Alibaba HPN, SIGCOMM 2024): each NIC's two ports go to two leaves, one per
//    plane, each plane with its own spines and cores. A node-side "port" vertex per NIC stands
//    for the NIC's two ports: its NIC link carries the NIC's rate, its two port cables half of it
//    each to the two planes. A flow takes one plane, picked by its hash with each plane weighted
//    by what its port cables at both ends still carry, so a lost leaf (`leaf:ID=down`) leaves
//    its nodes on the other plane at half their rate instead of cutting them off.
//  - multi_zone (Meta's RoCE AI zones, SIGCOMM 2024): one plane, a leaf per rack (RTSW), spines
//    per zone (CTSW), the aggregation tier (ATSW) across zones.
// Switches: NIC ports (dual_plane only, node-major), leaves, spines, cores; each tier plane-major.
// Switch cables: port cables (NIC-major, plane in order), leaf uplinks (leaf-major), spine
// uplinks (spine-major). Leaf uplink u goes to spine u of its zone and plane; spine uplink k of
// spine u goes to core (u, k) of its plane, which takes one cable from spine u of every zone.

#include "ctwin/fabric/topology.hpp"

namespace ctwin::fabric {

/// The counts of a zoned Clos build, from its fields and the nodes built.
struct PlaneClosShape {
  int planes = 1;             ///< 2: each NIC's two ports on two planes (dual_plane)
  bool rail_leaves = false;   ///< NIC k of a leaf group's nodes on the leaf of rail k (HPN's segments)
  int rails = 1;              ///< NICs per node
  int nodes_per_group = 1;    ///< nodes under one leaf group (a segment's hosts, a rack's servers)
  int groups_per_zone = 1;    ///< leaf groups (segments, racks) per zone
  int spines = 1;             ///< spines per zone and plane: every leaf has one uplink to each
  int spine_uplinks = 0;      ///< per spine, to the core tier (only built with more than one zone)
  int nodes = 0;
  int groups = 0;             ///< leaf groups built
  int zones = 0;              ///< zones built
  int most_zones = 1;         ///< zones the design holds (each core takes one cable per zone)

  [[nodiscard]] int leaves_per_group() const { return rail_leaves ? rails : 1; }
  [[nodiscard]] int leaves_per_plane() const { return groups * leaves_per_group(); }
  [[nodiscard]] int leaves() const { return planes * leaves_per_plane(); }
  [[nodiscard]] int spine_count() const { return planes * zones * spines; }
  [[nodiscard]] int cores_per_plane() const { return zones > 1 ? spines * spine_uplinks : 0; }
  [[nodiscard]] int cores() const { return planes * cores_per_plane(); }
  [[nodiscard]] int ports() const { return planes > 1 ? nodes * rails : 0; }  ///< NIC port vertices
  [[nodiscard]] long long port_cables() const { return static_cast<long long>(ports()) * planes; }
  [[nodiscard]] long long leaf_cables() const { return static_cast<long long>(leaves()) * spines; }
  [[nodiscard]] long long core_cables() const { return zones > 1 ? static_cast<long long>(spine_count()) * spine_uplinks : 0; }
};

class PlaneClos final : public Topology {
 public:
  PlaneClos(const ClusterSpec& spec, int nodes);

  [[nodiscard]] const PlaneClosShape& shape() const { return shape_; }

  [[nodiscard]] int nodes() const override { return shape_.nodes; }
  [[nodiscard]] int levels() const override { return shape_.zones > 1 ? 3 : 2; }
  [[nodiscard]] std::vector<TierSize> tiers() const override;
  [[nodiscard]] long long switch_cables() const override;
  void wire(SwitchWiring& wiring) const override;
  [[nodiscard]] int access_switch(int node, int nic) const override;
  void append_switch_path(const Fabric& fabric, int from, int to, std::uint64_t flow_hash,
                          std::vector<LinkId>& out) const override;
  void spread_switch_path(const Fabric& fabric, int from, int to, std::uint64_t flow_hash,
                          std::vector<std::pair<LinkId, double>>& out) const override;
  [[nodiscard]] int split_switch_paths(int from, int to) const override;
  void append_split_switch_path(const Fabric& fabric, int from, int to, std::uint64_t flow_hash, int index,
                                std::vector<LinkId>& out) const override;

  [[nodiscard]] std::string cable_name(const Fabric& fabric, LinkId even) const override;
  [[nodiscard]] std::optional<LinkId> find_cable(const Fabric& fabric, std::string_view name,
                                                 std::string& problem) const override;
  [[nodiscard]] std::string cable_forms() const override;
  [[nodiscard]] int uplink_parts() const override { return shape_.leaves(); }
  [[nodiscard]] std::vector<LinkId> uplinks(const Fabric& fabric, int leaf) const override;
  [[nodiscard]] std::optional<int> uplink_part_of(const Fabric& fabric, LinkId link) const override;
  [[nodiscard]] std::vector<LinkId> lost_leaf_cables(const Fabric& fabric, int leaf) const override;

  void describe(FabricSummary& summary) const override;
  [[nodiscard]] double bisection(const Fabric& fabric) const override;
  [[nodiscard]] std::vector<PairProbe> probes(const Fabric& fabric) const override;
  void check(std::vector<BuildWarning>& warnings) const override;

  [[nodiscard]] int nodes_per_unit() const override { return shape_.nodes_per_group * shape_.groups_per_zone; }
  [[nodiscard]] bool rail_aligned() const override { return shape_.rail_leaves; }
  [[nodiscard]] int nodes_per_access_switch() const override {
    return shape_.rail_leaves ? 0 : shape_.nodes_per_group;
  }

  // The fixed layout, in the Topology's switch numbering and cable order.
  [[nodiscard]] int leaf_of(int plane, int node, int nic) const;
  [[nodiscard]] long long port_cable(int node, int nic, int plane) const;
  [[nodiscard]] long long leaf_uplink(int leaf, int u) const;
  [[nodiscard]] long long spine_uplink(int spine, int k) const;

 private:
  [[nodiscard]] int leaf_base() const { return shape_.ports(); }
  [[nodiscard]] int spine_base() const { return leaf_base() + shape_.leaves(); }
  [[nodiscard]] int core_base() const { return spine_base() + shape_.spine_count(); }
  [[nodiscard]] int zone_of_leaf(int leaf) const;
  [[nodiscard]] int plane_of_leaf(int leaf) const { return leaf / shape_.leaves_per_plane(); }
  [[nodiscard]] int spine_index(int plane, int zone, int u) const { return (plane * shape_.zones + zone) * shape_.spines + u; }
  // Each plane's share of a flow between NIC ports `from` and `to`: what both ends' port cables
  // still carry, nothing where one of them is lost (at the floor of --degrade).
  [[nodiscard]] std::pair<double, double> plane_weights(const Fabric& fabric, int from, int to) const;
  [[nodiscard]] int pick_plane(const Fabric& fabric, int from, int to, std::uint64_t flow_hash) const;
  // Leaf to leaf in one plane over leaf uplink `u` and, between zones, spine uplink `k`.
  void append_leaf_path(const Fabric& fabric, int leaf_a, int leaf_b, int u, int k, std::vector<LinkId>& out) const;

  ClusterSpec spec_;
  PlaneClosShape shape_;
  LinkSpec port_link_;
};

/// Reads dual_plane's and multi_zone's own fields (TopologyKind::read).
void read_dual_plane_fields(JsonObjectReader& reader, const ServerSpec& server, FabricSpec& fabric);
void read_multi_zone_fields(JsonObjectReader& reader, const ServerSpec& server, FabricSpec& fabric);
[[nodiscard]] std::unique_ptr<Topology> plan_plane_clos(const ClusterSpec& spec, int nodes);

}  // namespace ctwin::fabric
