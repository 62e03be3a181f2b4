#pragma once
// Several sites joined by data-centre interconnect (DCI): each site a copy of the fabric its
// kind builds, every access switch of a site cabled to the site's border switch, and every pair
// of border switches joined by `dci_links` DCI links (fabric.sites in the topology file). A
// build's nodes are spread evenly over the sites, in order, so a job of any size spans them all
// as a cross-room or cross-campus job does. Routes inside a site are the site kind's; between
// sites they go access switch, border, DCI (one of the pair's links, picked by the flow hash),
// border, access switch. Modelled simplification: a site's border switch takes one cable from
// each access switch instead of hanging under its spines, so the climb to the border shares no
// spine with traffic inside the site (the DCI, orders of magnitude thinner, is the bottleneck).
//
// Switches: tier by tier as the site kind lists them, site-major inside a tier, then the border
// switches. Switch cables: each site's own cables (site-major, in the kind's order), then the
// border cables (site-major, access switch order), then the DCI links (site pairs in order).

#include "ctwin/fabric/topology.hpp"

namespace ctwin::fabric {

class MultiSite final : public Topology {
 public:
  /// `site` is the plan of one site (its kind's, for nodes_per_site nodes).
  MultiSite(const ClusterSpec& spec, int nodes, std::unique_ptr<Topology> site);

  [[nodiscard]] int sites() const { return sites_; }
  [[nodiscard]] int nodes_per_site() const { return site_->nodes(); }
  [[nodiscard]] const Topology& site() const { return *site_; }

  [[nodiscard]] int nodes() const override { return nodes_; }
  [[nodiscard]] int levels() const override { return site_->levels() + 1; }
  [[nodiscard]] std::vector<TierSize> tiers() const override;
  [[nodiscard]] long long switch_cables() const override;
  void wire(SwitchWiring& wiring) const override;
  [[nodiscard]] int access_switch(int node, int nic) const override;
  [[nodiscard]] bool rails_meet_in_node_only(int src_nic, int dst_nic) const override {
    return site_->rails_meet_in_node_only(src_nic, dst_nic);
  }
  void append_switch_path(const Fabric& fabric, int from, int to, std::uint64_t flow_hash,
                          std::vector<LinkId>& out) const override;

  [[nodiscard]] std::string cable_name(const Fabric& fabric, LinkId even) const override;
  [[nodiscard]] std::optional<LinkId> find_cable(const Fabric& fabric, std::string_view name,
                                                 std::string& problem) const override;
  [[nodiscard]] std::string cable_forms() const override;
  [[nodiscard]] int uplink_parts() const override { return site_->uplink_parts() * sites_; }
  [[nodiscard]] std::vector<LinkId> uplinks(const Fabric& fabric, int part) const override;
  [[nodiscard]] std::optional<int> uplink_part_of(const Fabric& fabric, LinkId link) const override;

  void describe(FabricSummary& summary) const override;
  [[nodiscard]] double bisection(const Fabric& fabric) const override;
  [[nodiscard]] std::vector<PairProbe> probes(const Fabric& fabric) const override;
  void check(std::vector<BuildWarning>& warnings) const override;

  [[nodiscard]] int nodes_per_unit() const override { return site_->nodes_per_unit(); }
  [[nodiscard]] bool rail_aligned() const override { return site_->rail_aligned(); }
  [[nodiscard]] int nodes_per_access_switch() const override { return site_->nodes_per_access_switch(); }

  /// Switch `index` of site `site`, in the site kind's numbering, in the build's numbering.
  [[nodiscard]] int switch_of_site(int site, int index) const;
  /// The cable index (see Fabric::switch_link) of access switch `access` of site `site` to its
  /// border, and of the `l`-th DCI link between sites `a` < `b`.
  [[nodiscard]] long long border_index(int site, int access) const;
  [[nodiscard]] long long dci_index(int a, int b, int l) const;

 private:
  // The site and the site kind's index of switch `index` of the build (not a border switch).
  [[nodiscard]] std::pair<int, int> site_switch(int index) const;
  // Link `id` of site 0's cables as site `site`'s.
  [[nodiscard]] LinkId shifted(LinkId id, int site) const;

  SitesSpec sites_spec_;
  int nodes_ = 0;
  int sites_ = 0;  ///< sites the build fills (at most sites_spec_.count)
  int border_ports_ = 0;
  std::unique_ptr<Topology> site_;
  std::vector<TierSize> site_tiers_;
  std::vector<int> site_tier_base_;   ///< first switch of each tier in the site kind's numbering
  std::vector<int> build_tier_base_;  ///< first switch of each tier in the build's numbering
  int border_base_ = 0;
  long long site_cables_ = 0;
};

/// Reads fabric.sites: count, dci {links, bandwidth, latency}, border_link (default `link`).
[[nodiscard]] SitesSpec read_sites(JsonObjectReader& reader, const LinkSpec& link);

}  // namespace ctwin::fabric
