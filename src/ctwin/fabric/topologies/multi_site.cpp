#include "ctwin/fabric/topologies/multi_site.hpp"

#include <algorithm>
#include <charconv>

#include "ctwin/core/error.hpp"
#include "ctwin/core/int_math.hpp"
#include "ctwin/core/json_reader.hpp"
#include "ctwin/fabric/build_checks.hpp"
#include "ctwin/fabric/ecmp_hash.hpp"
#include "ctwin/fabric/fabric.hpp"
#include "ctwin/fabric/summary.hpp"

namespace ctwin::fabric {
namespace {

constexpr int kMaxSites = 64;
constexpr int kMaxDciLinks = 4096;
// Salt of the DCI link pick, apart from the salts the site kinds use (0-3, 7, 8).
constexpr int kDciSalt = 12;

// Parses "<word><number>" at the front of `text`, consuming both.
std::optional<int> take_indexed(std::string_view& text, std::string_view word) {
  if (text.substr(0, word.size()) != word) return std::nullopt;
  std::string_view rest = text.substr(word.size());
  int value = 0;
  const auto [end, error] = std::from_chars(rest.data(), rest.data() + rest.size(), value);
  if (error != std::errc() || value < 0 || end == rest.data()) return std::nullopt;
  text = rest.substr(static_cast<std::size_t>(end - rest.data()));
  return value;
}

}  // namespace

SitesSpec read_sites(JsonObjectReader& reader, const LinkSpec& link) {
  SitesSpec sites;
  sites.count = static_cast<int>(reader.integer("count", 2, kMaxSites));
  if (!reader.has("dci")) reader.fail("dci", "required: the links that join the sites (links, bandwidth, latency)");
  {
    auto dci = reader.object("dci");
    sites.dci_links = static_cast<int>(dci.integer("links", 1, kMaxDciLinks));
    sites.dci = {dci.bandwidth("bandwidth"), dci.duration("latency")};
    sites.dci.efficiency = dci.number_or("efficiency", 0.01, 1, 1);
    dci.finish();
  }
  sites.border = link;
  if (auto border = reader.optional_object("border_link")) {
    sites.border = {border->bandwidth("bandwidth"), border->duration("latency")};
    sites.border.efficiency = border->number_or("efficiency", 0.01, 1, 1);
    border->finish();
  }
  reader.finish();
  return sites;
}

MultiSite::MultiSite(const ClusterSpec& spec, int nodes, std::unique_ptr<Topology> site)
    : sites_spec_(*spec.fabric.sites),
      nodes_(nodes),
      border_ports_(spec.fabric.switch_spec.ports),
      site_(std::move(site)) {
  sites_ = static_cast<int>(ceil_div(static_cast<long long>(nodes), static_cast<long long>(site_->nodes())));
  site_tiers_ = site_->tiers();
  int site_base = 0;
  int build_base = 0;
  for (const TierSize& tier : site_tiers_) {
    site_tier_base_.push_back(site_base);
    build_tier_base_.push_back(build_base);
    site_base += tier.switches;
    build_base += tier.switches * sites_;
  }
  border_base_ = build_base;
  site_cables_ = site_->switch_cables();
}

std::vector<TierSize> MultiSite::tiers() const {
  std::vector<TierSize> tiers;
  for (TierSize tier : site_tiers_) {
    tier.switches *= sites_;
    tiers.push_back(tier);
  }
  // A border switch's cables from its access switches against its DCI links.
  const double down = static_cast<double>(site_tiers_.front().switches) * sites_spec_.border.bandwidth.bytes_per_second();
  const double up = static_cast<double>(sites_ - 1) * sites_spec_.dci_links * sites_spec_.dci.bandwidth.bytes_per_second();
  tiers.push_back({"border", VertexKind::kBorder, sites_, sites_ > 1 ? down / up : 1.0});
  return tiers;
}

long long MultiSite::switch_cables() const {
  const long long pairs = static_cast<long long>(sites_) * (sites_ - 1) / 2;
  return sites_ * site_cables_ + static_cast<long long>(sites_) * site_tiers_.front().switches +
         pairs * sites_spec_.dci_links;
}

int MultiSite::switch_of_site(int site, int index) const {
  std::size_t t = site_tiers_.size() - 1;
  while (index < site_tier_base_[t]) --t;
  return build_tier_base_[t] + site * site_tiers_[t].switches + (index - site_tier_base_[t]);
}

std::pair<int, int> MultiSite::site_switch(int index) const {
  CTWIN_ASSERT(index < border_base_, "a site's switch, not a border");
  std::size_t t = site_tiers_.size() - 1;
  while (index < build_tier_base_[t]) --t;
  const int offset = index - build_tier_base_[t];
  return {offset / site_tiers_[t].switches, site_tier_base_[t] + offset % site_tiers_[t].switches};
}

long long MultiSite::border_index(int site, int access) const {
  return sites_ * site_cables_ + static_cast<long long>(site) * site_tiers_.front().switches + access;
}

long long MultiSite::dci_index(int a, int b, int l) const {
  const long long s = sites_;
  const long long pair = a * (2 * s - a - 1) / 2 + (b - a - 1);
  return border_index(sites_, 0) + pair * sites_spec_.dci_links + l;
}

LinkId MultiSite::shifted(LinkId id, int site) const {
  return id + static_cast<LinkId>(2 * site * site_cables_);
}

namespace {

// A site kind's cables, put where site `site`'s switches are.
class SiteWiring final : public SwitchWiring {
 public:
  SiteWiring(const MultiSite& sites, int site, SwitchWiring& wiring) : sites_(sites), site_(site), wiring_(wiring) {}
  void cable(int switch_a, int switch_b, const LinkSpec& spec, LinkKind kind) override {
    wiring_.cable(sites_.switch_of_site(site_, switch_a), sites_.switch_of_site(site_, switch_b), spec, kind);
  }

 private:
  const MultiSite& sites_;
  int site_;
  SwitchWiring& wiring_;
};

}  // namespace

void MultiSite::wire(SwitchWiring& wiring) const {
  for (int s = 0; s < sites_; ++s) {
    SiteWiring site_wiring(*this, s, wiring);
    site_->wire(site_wiring);
  }
  for (int s = 0; s < sites_; ++s) {
    for (int access = 0; access < site_tiers_.front().switches; ++access) {
      wiring.cable(switch_of_site(s, access), border_base_ + s, sites_spec_.border, LinkKind::kBorder);
    }
  }
  for (int a = 0; a < sites_; ++a) {
    for (int b = a + 1; b < sites_; ++b) {
      for (int l = 0; l < sites_spec_.dci_links; ++l) {
        wiring.cable(border_base_ + a, border_base_ + b, sites_spec_.dci, LinkKind::kDci);
      }
    }
  }
}

int MultiSite::access_switch(int node, int nic) const {
  const int per_site = site_->nodes();
  const int access = site_->access_switch(node % per_site, nic);
  CTWIN_ASSERT(access < site_tiers_.front().switches, "a site kind's NICs plug into its first tier");
  return switch_of_site(node / per_site, access);
}

void MultiSite::append_switch_path(const Fabric& fabric, int from, int to, std::uint64_t flow_hash,
                                   std::vector<LinkId>& out) const {
  if (from == to) return;
  const auto [site_a, a] = site_switch(from);
  const auto [site_b, b] = site_switch(to);
  if (site_a == site_b) {
    const std::size_t first = out.size();
    site_->append_switch_path(fabric, a, b, flow_hash, out);
    for (std::size_t i = first; i < out.size(); ++i) out[i] = shifted(out[i], site_a);
    return;
  }
  out.push_back(fabric.switch_link(border_index(site_a, a)));
  const int l = ecmp_pick(flow_hash, kDciSalt, sites_spec_.dci_links);
  const LinkId dci = fabric.switch_link(dci_index(std::min(site_a, site_b), std::max(site_a, site_b), l));
  out.push_back(site_a < site_b ? dci : reverse(dci));
  out.push_back(reverse(fabric.switch_link(border_index(site_b, b))));
}

std::string MultiSite::cable_name(const Fabric& fabric, LinkId even) const {
  if (even < fabric.switch_link(0)) return "";
  const long long n = (static_cast<long long>(even) - fabric.switch_link(0)) / 2;
  if (n >= switch_cables()) return "";
  if (n < sites_ * site_cables_) {
    const int s = static_cast<int>(n / site_cables_);
    const std::string inner = site_->cable_name(fabric, even - static_cast<LinkId>(2 * s * site_cables_));
    if (inner.empty()) return "";
    std::string name = "site";
    name += std::to_string(s) + "." + inner;
    return name;
  }
  const long long access = site_tiers_.front().switches;
  if (n < border_index(sites_, 0)) {
    const long long k = n - border_index(0, 0);
    std::string name = "site";
    name += std::to_string(k / access) + ".border" + std::to_string(k % access);
    return name;
  }
  const Link& link = fabric.link(even);
  const int a = static_cast<int>(link.from - fabric.switch_vertex(border_base_));
  const int b = static_cast<int>(link.to - fabric.switch_vertex(border_base_));
  std::string name = "dci";
  name += std::to_string(a) + "-" + std::to_string(b) + "." + std::to_string((n - border_index(sites_, 0)) % sites_spec_.dci_links);
  return name;
}

std::optional<LinkId> MultiSite::find_cable(const Fabric& fabric, std::string_view name, std::string& problem) const {
  std::string_view text = name;
  if (const auto site = take_indexed(text, "site")) {
    if (text.substr(0, 1) != ".") return std::nullopt;
    text.remove_prefix(1);
    if (*site >= sites_) {
      problem = "no such site in the build (" + std::to_string(sites_) + " sites)";
      return std::nullopt;
    }
    std::string_view border = text;
    if (const auto access = take_indexed(border, "border"); access && border.empty()) {
      if (*access >= site_tiers_.front().switches) {
        problem = "no such border cable in the build (one per access switch)";
        return std::nullopt;
      }
      return fabric.switch_link(border_index(*site, *access));
    }
    const auto inner = site_->find_cable(fabric, text, problem);
    if (!inner) return std::nullopt;
    return shifted(*inner, *site);
  }
  const auto a = take_indexed(text, "dci");
  if (!a || text.substr(0, 1) != "-") return std::nullopt;
  text.remove_prefix(1);
  int b = 0;
  int l = 0;
  const auto second = std::from_chars(text.data(), text.data() + text.size(), b);
  if (second.ec != std::errc() || second.ptr == text.data() || second.ptr == text.data() + text.size() ||
      *second.ptr != '.') {
    return std::nullopt;
  }
  text.remove_prefix(static_cast<std::size_t>(second.ptr - text.data()) + 1);
  const auto third = std::from_chars(text.data(), text.data() + text.size(), l);
  if (third.ec != std::errc() || third.ptr != text.data() + text.size() || third.ptr == text.data()) return std::nullopt;
  if (*a >= b || b >= sites_ || l < 0 || l >= sites_spec_.dci_links) {
    problem = "no such DCI link in the build (dciA-B.L with A < B)";
    return std::nullopt;
  }
  return fabric.switch_link(dci_index(*a, b, l));
}

std::string MultiSite::cable_forms() const {
  return "siteS.(" + site_->cable_forms() + "), siteS.borderK or dciA-B.L";
}

std::vector<LinkId> MultiSite::uplinks(const Fabric& fabric, int part) const {
  const int per_site = site_->uplink_parts();
  std::vector<LinkId> links = site_->uplinks(fabric, part % per_site);
  for (LinkId& id : links) id = shifted(id, part / per_site);
  return links;
}

std::optional<int> MultiSite::uplink_part_of(const Fabric& fabric, LinkId link) const {
  if (link < fabric.switch_link(0)) return std::nullopt;
  const long long n = (static_cast<long long>(link) - fabric.switch_link(0)) / 2;
  if (n >= sites_ * site_cables_) return std::nullopt;
  const int s = static_cast<int>(n / site_cables_);
  const auto part = site_->uplink_part_of(fabric, link - static_cast<LinkId>(2 * s * site_cables_));
  if (!part) return std::nullopt;
  return s * site_->uplink_parts() + *part;
}

void MultiSite::describe(FabricSummary& summary) const {
  site_->describe(summary);
  summary.tiers = levels();
  summary.pods *= sites_;
  summary.scalable_units *= sites_;
  summary.rail_spine_groups *= sites_;
}

double MultiSite::bisection(const Fabric& fabric) const {
  // Halving the sites: the DCI links between the halves, bounded by half the injection.
  const double injection = static_cast<double>(nodes_) * fabric.spec().server.nics.count *
                           fabric.spec().server.nics.link.bandwidth.bytes_per_second() / 2;
  const long long s = sites_;
  const double dci = static_cast<double>((s / 2) * (s - s / 2)) * sites_spec_.dci_links *
                     sites_spec_.dci.bandwidth.bytes_per_second();
  return sites_ > 1 ? std::min(injection, dci) : site_->bisection(fabric);
}

std::vector<PairProbe> MultiSite::probes(const Fabric& fabric) const {
  std::vector<PairProbe> probes = site_->probes(fabric);
  const long long gpu = static_cast<long long>(site_->nodes()) * fabric.gpus_per_node();
  if (sites_ > 1 && gpu < fabric.gpus()) probes.push_back({"cross site", 0, static_cast<GpuId>(gpu), false});
  return probes;
}

void MultiSite::check(std::vector<BuildWarning>& warnings) const {
  site_->check(warnings);
  const long long ports = site_tiers_.front().switches + static_cast<long long>(sites_ - 1) * sites_spec_.dci_links;
  if (sites_ < 2 || ports <= border_ports_) return;
  warnings.push_back({"border_ports_short",
                      "each site's border switch takes " + std::to_string(site_tiers_.front().switches) +
                          " access-switch cables and " + std::to_string(ports - site_tiers_.front().switches) +
                          " DCI links (" + std::to_string(ports) + " ports) but has " + std::to_string(border_ports_) +
                          ": it stands for a border chassis or several switches the model joins into one",
                      "fewer fabric.sites.dci.links, or a build with fewer access switches per site"});
}

}  // namespace ctwin::fabric
