#include "ctwin/fabric/degradation.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <optional>

#include "ctwin/core/error.hpp"
#include "ctwin/core/limits.hpp"
#include "ctwin/core/unit_parse.hpp"

namespace ctwin::fabric {
namespace {

constexpr const char* kForms = "gpu:RANK=SPEED, nic:RANK=SHARE, link:NAME=SHARE, leaf:ID=uplinks:SHARE or leaf:ID=down";

std::optional<int> whole(std::string_view text) {
  int value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < 0) return std::nullopt;
  return value;
}

std::optional<double> share(std::string_view text) {
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || !std::isfinite(value)) return std::nullopt;
  return value;
}

// "n3.nic5" -> (3, 5).
std::optional<std::pair<int, int>> nic_cable(std::string_view text) {
  if (text.substr(0, 1) != "n") return std::nullopt;
  text.remove_prefix(1);
  const std::size_t at = text.find(".nic");
  if (at == std::string_view::npos) return std::nullopt;
  const auto node = whole(text.substr(0, at));
  const auto nic = whole(text.substr(at + 4));
  if (!node || !nic) return std::nullopt;
  return std::pair{*node, *nic};
}

int nic_of_rank(const Fabric& fabric, int rank) { return fabric.server().nic_of_gpu(fabric.local_index(rank)); }

}  // namespace

Degradation parse_degradation(const std::string& text, const std::string& flag, const Fabric& fabric) {
  const auto bad = [&](const std::string& why) {
    return InputError(flag, "", "'" + text + "': " + why + " (expected " + kForms + ")");
  };
  const std::size_t colon = text.find(':');
  const std::size_t equals = text.find('=');
  if (colon == std::string::npos || equals == std::string::npos || equals < colon) throw bad("not PART:ID=SHARE");
  const std::string kind = text.substr(0, colon);
  const std::string_view id = std::string_view(text).substr(colon + 1, equals - colon - 1);
  std::string_view value = std::string_view(text).substr(equals + 1);

  Degradation d;
  if (kind == "gpu" || kind == "nic") {
    d.kind = kind == "gpu" ? PartKind::kGpu : PartKind::kNic;
    const auto rank = whole(id);
    if (!rank) throw bad("the GPU rank is not a whole number");
    if (*rank >= fabric.gpus()) throw bad("the build has GPUs 0 to " + std::to_string(fabric.gpus() - 1));
    if (d.kind == PartKind::kNic && fabric.server().nics() == 0) throw bad("the server has no NIC");
    // A NIC is named by the first GPU it serves, whichever of its GPUs the term gave.
    d.index = d.kind == PartKind::kGpu ? *rank
                                        : fabric.node_of(*rank) * fabric.gpus_per_node() +
                                              fabric.server().gpu_of_nic(nic_of_rank(fabric, *rank));
  } else if (kind == "leaf") {
    d.kind = PartKind::kLeafUplinks;
    const auto leaf = whole(id);
    if (!leaf) throw bad("the leaf is not a whole number");
    const int leaves = fabric.topology().uplink_parts();
    if (leaves == 0) throw bad("the build has no leaf with uplinks (one leaf, or a fabric without leaves)");
    if (*leaf >= leaves) throw bad("the build has leaves 0 to " + std::to_string(leaves - 1));
    if (value == "down") {
      // A lost leaf: only where its nodes keep another way out (a dual plane's other leaf).
      if (fabric.topology().lost_leaf_cables(fabric, *leaf).empty()) {
        throw bad("losing a whole leaf would cut its nodes off this fabric (only a dual_plane leaf can be down)");
      }
      d.kind = PartKind::kLeafLost;
      d.index = *leaf;
      d.factor = limits::kMinDegradedShare;
      return d;
    }
    if (value.substr(0, 8) != "uplinks:") throw bad("a leaf is degraded by the share of its uplinks still up");
    value.remove_prefix(8);
    d.index = *leaf;
  } else if (kind == "link") {
    d.kind = PartKind::kLink;
    std::string problem;
    const auto cable = find_named_cable(fabric, id, problem);
    if (!cable) throw bad(problem);
    d.index = static_cast<int>(*cable);
  } else {
    throw bad("unknown part '" + kind + "'");
  }
  const auto factor = share(value);
  if (!factor) throw bad("the share is not a number");
  if (const auto problem = limits::degraded_share_problem(*factor)) throw bad(*problem);
  d.factor = *factor;
  // The slowest link ctwin reads is 1 Mb/s (limits::kMinBitsPerSecond); a degraded one may not
  // go below it either, or transfers outlast the clock.
  for (const LinkId link : part_links(fabric, d.kind, d.index)) {
    const Bandwidth left = fabric.link(link).bandwidth * d.factor;
    if (left.bytes_per_second() * 8 < limits::kMinBitsPerSecond) {
      throw bad("leaves a link at " + format_bandwidth(left) + ", below the 1 Mbps ctwin models");
    }
  }
  return d;
}

std::optional<LinkId> find_named_cable(const Fabric& fabric, std::string_view name, std::string& problem) {
  problem.clear();
  if (const auto nic = nic_cable(name)) {
    if (nic->first < fabric.nodes() && nic->second < fabric.server().nics()) return fabric.access_link(nic->first, nic->second);
    problem = "no such NIC cable in the build";
    return std::nullopt;
  }
  if (const auto cable = fabric.topology().find_cable(fabric, name, problem)) return *cable;
  if (problem.empty()) problem = "a link is named nN.nicR or " + fabric.topology().cable_forms();
  return std::nullopt;
}

std::string cable_name(const Fabric& fabric, LinkId link) {
  const int rails = fabric.server().nics();
  const LinkId even = link & ~LinkId{1};
  const auto access = fabric.access_link(0, 0);
  if (rails > 0 && even >= access && even < access + 2 * static_cast<long long>(fabric.nodes()) * rails) {
    const int slot = static_cast<int>((even - access) / 2);
    return "n" + std::to_string(slot / rails) + ".nic" + std::to_string(slot % rails);
  }
  return fabric.topology().cable_name(fabric, even);
}

std::string part_name(const Fabric& fabric, PartKind kind, int index) {
  switch (kind) {
    case PartKind::kGpu: return "gpu:" + std::to_string(index);
    case PartKind::kNic: return "nic:" + std::to_string(index);
    case PartKind::kLeafUplinks:
    case PartKind::kLeafLost: return "leaf:" + std::to_string(index);
    case PartKind::kLink: return "link:" + cable_name(fabric, static_cast<LinkId>(index));
  }
  return "";
}

std::string term(const Fabric& fabric, const Degradation& d) {
  if (d.kind == PartKind::kLeafLost) return part_name(fabric, d.kind, d.index) + "=down";
  char share_text[32];
  std::snprintf(share_text, sizeof share_text, "%.6g", d.factor);
  return part_name(fabric, d.kind, d.index) + (d.kind == PartKind::kLeafUplinks ? "=uplinks:" : "=") + share_text;
}

std::vector<LinkId> part_links(const Fabric& fabric, PartKind kind, int index) {
  std::vector<LinkId> links;
  const auto cable = [&](LinkId even) {
    links.push_back(even);
    links.push_back(reverse(even));
  };
  switch (kind) {
    case PartKind::kGpu: break;
    case PartKind::kNic: cable(fabric.access_link(fabric.node_of(index), nic_of_rank(fabric, index))); break;
    case PartKind::kLink: cable(static_cast<LinkId>(index)); break;
    case PartKind::kLeafUplinks:
      for (const LinkId up : fabric.topology().uplinks(fabric, index)) cable(up);
      break;
    case PartKind::kLeafLost:
      for (const LinkId even : fabric.topology().lost_leaf_cables(fabric, index)) cable(even);
      break;
  }
  return links;
}

void apply_degradation(Fabric& fabric, const Degradation& degradation) {
  CTWIN_ASSERT(!limits::degraded_share_problem(degradation.factor), "a share of the nominal rate in [0.001, 1]");
  for (const LinkId link : part_links(fabric, degradation.kind, degradation.index)) {
    fabric.scale_link_bandwidth(link, degradation.factor);
  }
}

}  // namespace ctwin::fabric
