#include "ctwin/fabric/topologies/dragonfly.hpp"

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

constexpr int kMaxDragonflyCount = 1 << 16;

// Parses a whole number at the front of `text`, consuming it.
std::optional<int> take_index(std::string_view& text) {
  int value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || value < 0) return std::nullopt;
  text.remove_prefix(static_cast<std::size_t>(end - text.data()));
  return value;
}

bool take_prefix(std::string_view& text, std::string_view prefix) {
  if (text.substr(0, prefix.size()) != prefix) return false;
  text.remove_prefix(prefix.size());
  return true;
}

double dragonfly_parameter(const ClusterSpec& spec, const char* name) {
  const auto it = spec.fabric.parameters.find(name);
  CTWIN_ASSERT(it != spec.fabric.parameters.end(), "read_dragonfly_fields() set every parameter");
  return it->second;
}

}  // namespace

void read_dragonfly_fields(JsonObjectReader& reader, const ServerSpec& server, FabricSpec& fabric) {
  fabric.kind = FabricKind::kTopOfRack;
  const auto a = reader.integer("routers_per_group", 1, kMaxDragonflyCount);
  const auto p = reader.integer("nodes_per_router", 1, kMaxDragonflyCount);
  const auto h = reader.integer("global_ports", 1, kMaxDragonflyCount);
  const auto g = reader.integer("groups", 1, kMaxDragonflyCount);
  LinkSpec global = fabric.link;
  if (auto link = reader.optional_object("global_link")) {
    global = {link->bandwidth("bandwidth"), link->duration("latency")};
    global.efficiency = link->number_or("efficiency", 0.01, 1, 1);
    link->finish();
  }
  const bool valiant = reader.choice_or("paths", {"minimal", "valiant"}, "minimal") == "valiant";
  // Kim et al.: each group's a*h global ports join it to at most a*h other groups.
  if (g > a * h + 1) {
    reader.fail("groups", std::to_string(g) + " groups need " + std::to_string(g - 1) +
                              " global links per group, but " + std::to_string(a) + " routers x " + std::to_string(h) +
                              " global_ports wire at most " + std::to_string(a * h) + " (at most " +
                              std::to_string(a * h + 1) + " groups)");
  }
  const long long radix = p * server.nics.count + (a - 1) + h;
  if (radix > fabric.switch_spec.ports) {
    reader.fail("nodes_per_router", "a router needs " + std::to_string(p * server.nics.count) + " NIC ports, " +
                                        std::to_string(a - 1) + " local and " + std::to_string(h) +
                                        " global ports (" + std::to_string(radix) + ") but has " +
                                        std::to_string(fabric.switch_spec.ports) + " (fabric.switch.ports)");
  }
  if (valiant && g < 3) reader.fail("paths", "valiant needs at least 3 groups (an intermediate group other than both ends)");
  fabric.parameters = {{"routers_per_group", static_cast<double>(a)},
                       {"nodes_per_router", static_cast<double>(p)},
                       {"global_ports", static_cast<double>(h)},
                       {"groups", static_cast<double>(g)},
                       {"valiant", valiant ? 1.0 : 0.0},
                       {"global_link.bandwidth_Bps", global.bandwidth.bytes_per_second()},
                       {"global_link.latency_ps", static_cast<double>(global.latency.ps())},
                       {"global_link.efficiency", global.efficiency}};
}

std::unique_ptr<Topology> plan_dragonfly(const ClusterSpec& spec, int nodes) {
  return std::make_unique<Dragonfly>(spec, nodes);
}

Dragonfly::Dragonfly(const ClusterSpec& spec, int nodes) : spec_(spec), nodes_(nodes) {
  shape_.routers_per_group = static_cast<int>(dragonfly_parameter(spec, "routers_per_group"));
  shape_.nodes_per_router = static_cast<int>(dragonfly_parameter(spec, "nodes_per_router"));
  shape_.global_ports = static_cast<int>(dragonfly_parameter(spec, "global_ports"));
  shape_.groups = static_cast<int>(dragonfly_parameter(spec, "groups"));
  shape_.valiant = dragonfly_parameter(spec, "valiant") != 0;
  global_link_ = {Bandwidth::bytes_per_second(dragonfly_parameter(spec, "global_link.bandwidth_Bps")),
                  SimTime::from_ps(static_cast<std::int64_t>(dragonfly_parameter(spec, "global_link.latency_ps"))),
                  dragonfly_parameter(spec, "global_link.efficiency")};
  const long long per_group = static_cast<long long>(shape_.routers_per_group) * shape_.nodes_per_router;
  const long long most = per_group * shape_.groups;
  if (nodes > most) {
    throw InputError(spec.file, "/fabric/groups",
                     std::to_string(static_cast<long long>(nodes) * spec.server.gpus) +
                         " GPUs exceed what this dragonfly can build (at most " + std::to_string(most * spec.server.gpus) +
                         " GPUs in " + std::to_string(shape_.groups) + " groups of " + std::to_string(per_group) +
                         " nodes)");
  }
  shape_.built_groups = static_cast<int>(ceil_div(static_cast<long long>(nodes), per_group));
}

std::vector<TierSize> Dragonfly::tiers() const {
  // A router's NIC ports against its global ports: what its group's traffic to other groups
  // shares when every node sends out of the group.
  const double down = static_cast<double>(shape_.nodes_per_router) * spec_.server.nics.count *
                      spec_.server.nics.link.bandwidth.bytes_per_second();
  const double up = static_cast<double>(shape_.global_ports) * global_link_.bandwidth.bytes_per_second();
  return {{"router", VertexKind::kRouter, shape_.routers(), shape_.built_groups > 1 ? down / up : 1.0}};
}

long long Dragonfly::local_index(int group, int r, int s) const {
  const long long a = shape_.routers_per_group;
  return group * (a * (a - 1) / 2) + r * (2 * a - r - 1) / 2 + (s - r - 1);
}

long long Dragonfly::global_index(int i, int j, int l) const {
  const long long b = shape_.built_groups;
  const long long pair = i * (2 * b - i - 1) / 2 + (j - i - 1);
  return shape_.local_cables() + pair * shape_.links_per_group_pair() + l;
}

int Dragonfly::gateway(int group, int peer, int l) const {
  // Consecutive arrangement: a group's global ports, router-major, go to the other groups in
  // order, links_per_group_pair() ports each.
  const int slot = peer > group ? peer - 1 : peer;
  return (slot * shape_.links_per_group_pair() + l) / shape_.global_ports;
}

void Dragonfly::wire(SwitchWiring& wiring) const {
  const int a = shape_.routers_per_group;
  for (int group = 0; group < shape_.built_groups; ++group) {
    for (int r = 0; r < a; ++r) {
      for (int s = r + 1; s < a; ++s) wiring.cable(group * a + r, group * a + s, spec_.fabric.link, LinkKind::kLocal);
    }
  }
  for (int i = 0; i < shape_.built_groups; ++i) {
    for (int j = i + 1; j < shape_.built_groups; ++j) {
      for (int l = 0; l < shape_.links_per_group_pair(); ++l) {
        wiring.cable(i * a + gateway(i, j, l), j * a + gateway(j, i, l), global_link_, LinkKind::kGlobal);
      }
    }
  }
}

int Dragonfly::access_switch(int node, int nic) const {
  (void)nic;
  return node / shape_.nodes_per_router;
}

void Dragonfly::append_local(const Fabric& fabric, int from, int to, std::vector<LinkId>& out) const {
  if (from == to) return;
  const int a = shape_.routers_per_group;
  const int group = from / a;
  const int r = std::min(from, to) % a;
  const int s = std::max(from, to) % a;
  const LinkId even = fabric.switch_link(local_index(group, r, s));
  out.push_back(from < to ? even : reverse(even));
}

int Dragonfly::hop_to_group(const Fabric& fabric, int from, int group, std::uint64_t flow_hash, int salt, int link,
                            std::vector<LinkId>& out) const {
  const int a = shape_.routers_per_group;
  const int own = from / a;
  if (own == group) return from;
  const int l = link >= 0 ? link : ecmp_pick(flow_hash, salt, shape_.links_per_group_pair());
  const int exit = own * a + gateway(own, group, l);
  const int entry = group * a + gateway(group, own, l);
  append_local(fabric, from, exit, out);
  const LinkId even = fabric.switch_link(global_index(std::min(own, group), std::max(own, group), l));
  out.push_back(own < group ? even : reverse(even));
  return entry;
}

void Dragonfly::append_switch_path(const Fabric& fabric, int from, int to, std::uint64_t flow_hash,
                                   std::vector<LinkId>& out) const {
  append_path_on_link(fabric, from, to, flow_hash, -1, out);
}

void Dragonfly::append_path_on_link(const Fabric& fabric, int from, int to, std::uint64_t flow_hash, int link,
                                    std::vector<LinkId>& out) const {
  if (from == to) return;
  const int a = shape_.routers_per_group;
  const int src_group = from / a;
  const int dst_group = to / a;
  int at = from;
  if (shape_.valiant && src_group != dst_group && shape_.built_groups > 2) {
    // An intermediate group other than both ends, the same for every packet of the flow.
    int via = ecmp_pick(flow_hash, 7, shape_.built_groups - 2);
    for (const int end : {std::min(src_group, dst_group), std::max(src_group, dst_group)}) {
      if (via >= end) ++via;
    }
    at = hop_to_group(fabric, at, via, flow_hash, 8, link, out);
  }
  at = hop_to_group(fabric, at, dst_group, flow_hash, 0, link, out);
  append_local(fabric, at, to, out);
}

// Adaptive routing as modelled here: a flow between groups spread evenly over the parallel global
// links of each group pair it crosses (part l takes the l-th of each), where ECMP hashes it onto
// one. Within a group the direct local link is the only minimal path. Slingshot's adaptive routing
// also detours over non-minimal paths when the minimal ones are loaded; that is not modelled.
int Dragonfly::split_switch_paths(int from, int to) const {
  const int a = shape_.routers_per_group;
  return from / a == to / a ? 1 : shape_.links_per_group_pair();
}

void Dragonfly::append_split_switch_path(const Fabric& fabric, int from, int to, std::uint64_t flow_hash, int index,
                                         std::vector<LinkId>& out) const {
  CTWIN_ASSERT(index >= 0 && index < split_switch_paths(from, to), "a part of the split names a global link");
  const int a = shape_.routers_per_group;
  append_path_on_link(fabric, from, to, flow_hash, from / a == to / a ? -1 : index, out);
}

void Dragonfly::spread_switch_path(const Fabric& fabric, int from, int to, std::uint64_t flow_hash,
                                   std::vector<std::pair<LinkId, double>>& out) const {
  const int parts = split_switch_paths(from, to);
  std::vector<LinkId> path;
  for (int index = 0; index < parts; ++index) {
    path.clear();
    append_split_switch_path(fabric, from, to, flow_hash, index, path);
    for (const LinkId link : path) out.emplace_back(link, 1.0 / parts);
  }
}

std::string Dragonfly::cable_name(const Fabric& fabric, LinkId even) const {
  const long long n = (static_cast<long long>(even) - fabric.switch_link(0)) / 2;
  if (even < fabric.switch_link(0) || n >= switch_cables()) return "";
  const Link& link = fabric.link(even);
  const int a = shape_.routers_per_group;
  const int from = static_cast<int>(link.from - fabric.switch_vertex(0));
  const int to = static_cast<int>(link.to - fabric.switch_vertex(0));
  if (n < shape_.local_cables()) {
    // Built by appending: GCC 12 warns falsely (-Wrestrict) on "literal" + std::string&&.
    std::string name = "g";
    name += std::to_string(from / a) + ".r" + std::to_string(from % a) + "-r" + std::to_string(to % a);
    return name;
  }
  const long long l = (n - shape_.local_cables()) % shape_.links_per_group_pair();
  std::string name = "g";
  name += std::to_string(from / a) + "-g" + std::to_string(to / a) + "." + std::to_string(l);
  return name;
}

std::optional<LinkId> Dragonfly::find_cable(const Fabric& fabric, std::string_view name, std::string& problem) const {
  std::string_view text = name;
  if (!take_prefix(text, "g")) return std::nullopt;
  const auto first = take_index(text);
  if (!first) return std::nullopt;
  const int a = shape_.routers_per_group;
  if (take_prefix(text, ".r")) {
    const auto r = take_index(text);
    std::optional<int> s;
    if (r && take_prefix(text, "-r")) s = take_index(text);
    if (!s || !text.empty()) return std::nullopt;
    if (*first >= shape_.built_groups || *r >= *s || *s >= a) {
      problem = "no such local link in the build (gG.rA-rB with A < B)";
      return std::nullopt;
    }
    return fabric.switch_link(local_index(*first, *r, *s));
  }
  if (take_prefix(text, "-g")) {
    const auto second = take_index(text);
    std::optional<int> l;
    if (second && take_prefix(text, ".")) l = take_index(text);
    if (!l || !text.empty()) return std::nullopt;
    if (*first >= *second || *second >= shape_.built_groups || *l >= shape_.links_per_group_pair()) {
      problem = "no such global link in the build (gI-gJ.L with I < J)";
      return std::nullopt;
    }
    return fabric.switch_link(global_index(*first, *second, *l));
  }
  return std::nullopt;
}

void Dragonfly::describe(FabricSummary& summary) const {
  summary.tiers = levels();
  summary.pods = shape_.built_groups;
}

double Dragonfly::bisection(const Fabric& fabric) const {
  (void)fabric;
  // The cut between two halves of the groups crosses floor(B/2) * ceil(B/2) group pairs; one
  // group alone is cut between halves of its routers.
  const double injection =
      spec_.server.nics.link.bandwidth.bytes_per_second() * spec_.server.nics.count * static_cast<double>(nodes_) / 2;
  const long long b = shape_.built_groups;
  if (b > 1) {
    const double global = global_link_.bandwidth.bytes_per_second() * static_cast<double>((b / 2) * (b - b / 2)) *
                          shape_.links_per_group_pair();
    return std::min(injection, global);
  }
  const long long a = shape_.routers_per_group;
  if (a < 2) return 0;
  return std::min(injection, spec_.fabric.link.bandwidth.bytes_per_second() * static_cast<double>((a / 2) * (a - a / 2)));
}

std::vector<PairProbe> Dragonfly::probes(const Fabric& fabric) const {
  std::vector<PairProbe> probes;
  const int per_node = fabric.gpus_per_node();
  const auto probe = [&](const char* name, long long node) {
    const long long gpu = node * per_node;
    if (node < nodes_ && gpu < fabric.gpus()) probes.push_back({name, 0, static_cast<GpuId>(gpu), false});
  };
  if (shape_.nodes_per_router > 1) probe("same router", 1);
  if (shape_.routers_per_group > 1) probe("same group", shape_.nodes_per_router);
  probe("cross group", static_cast<long long>(shape_.nodes_per_router) * shape_.routers_per_group);
  return probes;
}

void Dragonfly::check(std::vector<BuildWarning>& warnings) const {
  const long long ports = static_cast<long long>(shape_.routers_per_group) * shape_.global_ports;
  const long long wired = static_cast<long long>(shape_.groups - 1) * shape_.links_per_group_pair();
  if (shape_.groups < 2 || wired == ports) return;
  warnings.push_back({"global_ports_idle",
                      std::to_string(ports - wired) + " of each group's " + std::to_string(ports) +
                          " global ports stay dark: " + std::to_string(shape_.groups - 1) +
                          " other groups take " + std::to_string(shape_.links_per_group_pair()) + " links each",
                      "choose fabric.groups so that groups - 1 divides routers_per_group x global_ports (" +
                          std::to_string(ports) + ")"});
}

}  // namespace ctwin::fabric
