#pragma once
// Dragonfly (Kim, Dally, Scott and Abts, "Technology-Driven, Highly-Scalable Dragonfly
// Topology", ISCA 2008): groups of `a` routers joined all-to-all by local links, each router
// with `h` global ports, every pair of groups joined by the same number of global links. Each
// router takes `p` nodes, every NIC of a node on the node's router (Slingshot and Aries attach
// a node's NICs to one switch). Routes are minimal (at most local, global, local) or Valiant
// (minimal to an intermediate group picked per flow, then minimal on: Valiant's randomized
// routing as Kim et al. evaluate it), the parallel global links spread by the flow hash as
// ECMP does.
//
// Switches: routers, group-major. Switch cables: local links (group-major, router pairs in
// order), then global links (group pairs in order, parallel links in order).

#include "ctwin/fabric/topology.hpp"

namespace ctwin::fabric {

/// The counts of a dragonfly, as the closed forms of Kim et al. give them for a build of
/// `built_groups` of its `groups`.
struct DragonflyShape {
  int routers_per_group = 0;  ///< a
  int nodes_per_router = 0;   ///< p (nodes, each with all its NICs on the router)
  int global_ports = 0;       ///< h, per router
  int groups = 0;             ///< g, the design's groups: at most a*h + 1
  int built_groups = 0;       ///< groups a build of N nodes fills
  bool valiant = false;

  /// Global links between each pair of groups: floor(a*h / (g - 1)).
  [[nodiscard]] int links_per_group_pair() const {
    return groups > 1 ? routers_per_group * global_ports / (groups - 1) : 0;
  }
  [[nodiscard]] int routers() const { return built_groups * routers_per_group; }
  [[nodiscard]] long long local_cables() const {
    return static_cast<long long>(built_groups) * routers_per_group * (routers_per_group - 1) / 2;
  }
  [[nodiscard]] long long global_cables() const {
    return static_cast<long long>(built_groups) * (built_groups - 1) / 2 * links_per_group_pair();
  }
};

class Dragonfly final : public Topology {
 public:
  Dragonfly(const ClusterSpec& spec, int nodes);

  [[nodiscard]] const DragonflyShape& shape() const { return shape_; }

  [[nodiscard]] int nodes() const override { return nodes_; }
  [[nodiscard]] int levels() const override { return 1; }
  [[nodiscard]] std::vector<TierSize> tiers() const override;
  [[nodiscard]] long long switch_cables() const override { return shape_.local_cables() + shape_.global_cables(); }
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
  [[nodiscard]] std::string cable_forms() const override { return "gG.rA-rB (local) or gI-gJ.L (global)"; }

  void describe(FabricSummary& summary) const override;
  [[nodiscard]] double bisection(const Fabric& fabric) const override;
  [[nodiscard]] std::vector<PairProbe> probes(const Fabric& fabric) const override;
  void check(std::vector<BuildWarning>& warnings) const override;

  [[nodiscard]] int nodes_per_unit() const override { return shape_.routers_per_group * shape_.nodes_per_router; }
  [[nodiscard]] bool rail_aligned() const override { return false; }
  [[nodiscard]] int nodes_per_access_switch() const override { return shape_.nodes_per_router; }

  /// The cable index (see Fabric::switch_link) of the local link between routers `r` < `s` of
  /// group `group`, and of the `l`-th global link between groups `i` < `j`.
  [[nodiscard]] long long local_index(int group, int r, int s) const;
  [[nodiscard]] long long global_index(int i, int j, int l) const;
  /// The router of group `group` (its index in the group) holding its `l`-th link to `peer`.
  [[nodiscard]] int gateway(int group, int peer, int l) const;

 private:
  // Appends the links from router `from` to the router of group `group` its global link lands
  // on (none if `from` is in `group`); returns that router. `link` >= 0: that of the group
  // pair's parallel global links, else the one the flow hash picks.
  int hop_to_group(const Fabric& fabric, int from, int group, std::uint64_t flow_hash, int salt, int link,
                   std::vector<LinkId>& out) const;
  // append_switch_path() on global link `link` of every group pair crossed (-1: hashed).
  void append_path_on_link(const Fabric& fabric, int from, int to, std::uint64_t flow_hash, int link,
                           std::vector<LinkId>& out) const;
  void append_local(const Fabric& fabric, int from, int to, std::vector<LinkId>& out) const;

  ClusterSpec spec_;
  int nodes_ = 0;
  DragonflyShape shape_;
  LinkSpec global_link_;
};

/// Reads dragonfly's own fields (TopologyKind::read): routers_per_group, nodes_per_router,
/// global_ports, groups, global_link, paths.
void read_dragonfly_fields(JsonObjectReader& reader, const ServerSpec& server, FabricSpec& fabric);
[[nodiscard]] std::unique_ptr<Topology> plan_dragonfly(const ClusterSpec& spec, int nodes);

}  // namespace ctwin::fabric
