#include "ctwin/fabric/cluster_spec.hpp"

#include <cmath>

#include <nlohmann/json.hpp>

#include "ctwin/core/error.hpp"
#include "ctwin/core/json_reader.hpp"
#include "ctwin/core/overrides.hpp"
#include "ctwin/fabric/pcie_generation.hpp"
#include "ctwin/fabric/topologies/multi_site.hpp"
#include "ctwin/fabric/topology.hpp"

namespace ctwin::fabric {
namespace {

constexpr int kMaxCount = 1 << 16;
// GPUs in one server (one NVLink domain): 1,024. The largest announced is NVL576; a server's
// routes are held for every pair of its GPUs and NICs, so a 4,096-GPU server took minutes and
// a gigabyte before `fabric` printed a word (issue 36).
constexpr int kMaxServerGpus = 1 << 10;

double read_efficiency(JsonObjectReader& reader, double fallback) {
  return reader.number_or("efficiency", 0.01, 1, fallback);
}

LinkSpec read_link(JsonObjectReader reader) {
  LinkSpec link{reader.bandwidth("bandwidth"), reader.duration("latency")};
  link.efficiency = read_efficiency(reader, 1);
  reader.finish();
  return link;
}

NvlinkSpec read_nvlink(JsonObjectReader reader) {
  NvlinkSpec nvlink;
  nvlink.generation = static_cast<int>(reader.integer("generation", 1, 10));
  nvlink.link = {reader.bandwidth("bandwidth"), reader.duration("latency")};
  nvlink.link.efficiency = read_efficiency(reader, default_nvlink_efficiency(nvlink.generation));
  nvlink.nvls = reader.boolean_or("nvls", false);
  reader.finish();
  return nvlink;
}

NicSpec read_nics(JsonObjectReader reader) {
  NicSpec nics;
  nics.model = reader.string_or("model", "");
  nics.count = static_cast<int>(reader.integer("count", 1, kMaxCount));
  nics.link = {reader.bandwidth("bandwidth"), reader.duration("latency")};
  nics.link.efficiency = read_efficiency(reader, 1);
  nics.technology = reader.choice("technology", {"infiniband", "roce"}) == "roce" ? NetworkTechnology::kRoce
                                                                                    : NetworkTechnology::kInfiniBand;
  reader.finish();
  return nics;
}

ServerSpec read_server(JsonObjectReader reader) {
  ServerSpec server;
  server.name = reader.string("name");
  server.gpu = reader.string("gpu");
  server.gpus = static_cast<int>(reader.integer("gpus", 1, kMaxServerGpus));
  if (auto nvlink = reader.optional_object("nvlink")) server.nvlink = read_nvlink(*nvlink);
  server.cpus = static_cast<int>(reader.integer("cpus", 1, 64));
  server.pcie_switches = static_cast<int>(reader.integer("pcie_switches", 0, kMaxCount));
  {
    auto pcie = reader.object("pcie");
    server.pcie_generation = static_cast<int>(pcie.integer("generation", 1, kMaxPcieGeneration));
    server.pcie = {pcie.bandwidth("bandwidth"), pcie.duration("latency")};
    server.pcie.efficiency = read_efficiency(pcie, default_pcie_efficiency(server.pcie_generation));
    pcie.finish();
  }
  if (auto cpu_link = reader.optional_object("cpu_link")) server.cpu_link = read_link(*cpu_link);
  server.nics = read_nics(reader.object("nics"));
  reader.finish();

  if (server.cpus > 1 && !server.cpu_link && !server.nvlink) {
    reader.fail("cpu_link", "required when a server without NVLink has more than one CPU socket");
  }
  if (server.gpus % server.nics.count != 0) {
    reader.fail("nics", "count " + std::to_string(server.nics.count) + " does not divide gpus " +
                            std::to_string(server.gpus) + " (GPUs are spread evenly over NICs)");
  }
  const int hosts = server.pcie_switches > 0 ? server.pcie_switches : server.cpus;
  if (server.pcie_switches > 0 && server.pcie_switches % server.cpus != 0) {
    reader.fail("pcie_switches", std::to_string(server.pcie_switches) + " PCIe switches cannot be spread evenly over " +
                                     std::to_string(server.cpus) + " CPU sockets");
  }
  if (server.gpus % hosts != 0 || server.nics.count % hosts != 0) {
    reader.fail(server.pcie_switches > 0 ? "pcie_switches" : "cpus",
                std::to_string(hosts) + " PCIe hosts cannot carry " + std::to_string(server.gpus) + " GPUs and " +
                    std::to_string(server.nics.count) + " NICs evenly");
  }
  return server;
}

FabricSpec read_fabric(JsonObjectReader reader, const ServerSpec& server) {
  FabricSpec fabric;
  fabric.kind_name = reader.choice("kind", topology_kind_names());
  fabric.kind = FabricKind::kTopOfRack;
  {
    auto sw = reader.object("switch");
    fabric.switch_spec.model = sw.string_or("model", "");
    fabric.switch_spec.ports = static_cast<int>(sw.integer("ports", 2, 4096));
    fabric.switch_spec.ports_per_transceiver = static_cast<int>(sw.integer_or("ports_per_transceiver", 1, 8, 1));
    sw.finish();
  }
  fabric.link = read_link(reader.object("link"));
  fabric.ecmp_seed = reader.integer_or("ecmp_seed", 0, 1'000'000'000, 0);
  for (const TopologyKind& kind : topology_kinds()) {
    if (fabric.kind_name == kind.name) kind.read(reader, server, fabric);
  }
  if (auto sites = reader.optional_object("sites")) fabric.sites = read_sites(*sites, fabric.link);
  if (reader.choice_or("routing", {"ecmp", "adaptive"}, "ecmp") == "adaptive") {
    // Sites do not enumerate the paths across their DCI (Topology::spread_switch_path); there
    // adaptive would silently stay ECMP.
    if (fabric.sites) {
      reader.fail("routing", "adaptive is modelled on single-site fabrics only (rail_optimized, top_of_rack, "
                             "dual_plane, multi_zone, dragonfly)");
    }
    fabric.routing = RoutingPolicy::kAdaptive;
  }
  reader.finish();
  return fabric;
}

std::vector<NodeGroupSpec> read_node_groups(const nlohmann::json& groups, const ServerSpec& file_server,
                                            const std::string& source) {
  if (!groups.is_array() || groups.empty()) {
    throw InputError(source, "/node_groups", "expected a non-empty list of {\"name\", \"gpu\", \"nodes\"}");
  }
  std::vector<NodeGroupSpec> result;
  for (std::size_t i = 0; i < groups.size(); ++i) {
    const std::string pointer = "/node_groups/" + std::to_string(i);
    if (!groups[i].is_object()) throw InputError(source, pointer, "expected an object");
    JsonObjectReader reader(groups[i], source, pointer);
    NodeGroupSpec group;
    group.name = reader.string("name");
    if (group.name.empty()) reader.fail("name", "must not be empty");
    for (const auto& earlier : result) {
      if (earlier.name == group.name) reader.fail("name", "'" + group.name + "' names two groups");
    }
    group.gpu = reader.string("gpu");
    group.nodes = reader.integer("nodes", 0, kMaxCount);
    if (group.nodes == 0) reader.fail("nodes", "a group holds at least one node");
    if (auto server = reader.optional_object("server")) {
      // Ranks map to nodes by the file's GPUs per node, so a group's server keeps that count.
      group.server = read_server(*server);
      if (group.server->gpus != file_server.gpus) {
        server->fail("gpus", std::to_string(group.server->gpus) + " GPUs per node; the file's server has " +
                                 std::to_string(file_server.gpus) + " (ranks fill nodes of the same size)");
      }
      if (group.server->gpu != group.gpu) {
        server->fail("gpu", "'" + group.server->gpu + "' is not the group's gpu '" + group.gpu + "'");
      }
    }
    reader.finish();
    result.push_back(std::move(group));
  }
  return result;
}

}  // namespace

double default_nvlink_efficiency(int generation) {
  switch (generation) {
    case 1: return 18.0 / 20.0;
    case 2:
    case 3: return 20.0 / 25.0;
    case 4: return 20.6 / 25.0;
    default: return 40.1 / 50.0;
  }
}

double default_pcie_efficiency(int generation) { return generation <= 2 ? 0.75 : 12.0 / 15.75; }

ClusterSpec parse_cluster(const nlohmann::json& document, const std::string& source) {
  JsonObjectReader reader(document, source, "");
  ClusterSpec spec;
  spec.file = source;
  spec.name = reader.string("name");
  spec.description = reader.string_or("description", "");
  spec.sources = reader.string_list_or_empty("sources");
  spec.server = read_server(reader.object("server"));
  spec.fabric = read_fabric(reader.object("fabric"), spec.server);
  if (const auto* storage = reader.optional("storage"); storage != nullptr && !storage->is_null()) {
    spec.storage = parse_storage(*storage, source, "/storage");
  }
  if (const auto* groups = reader.optional("node_groups"); groups != nullptr && !groups->is_null()) {
    spec.node_groups = read_node_groups(*groups, spec.server, source);
  }
  reader.finish();
  return spec;
}

ClusterSpec load_cluster(const std::filesystem::path& path, const std::vector<std::string>& overrides) {
  nlohmann::json document = load_json_file(path);
  apply_overrides(document, overrides);
  return parse_cluster(document, path.string());
}

double storage_node_path_Bps(const ClusterSpec& spec, const StorageTierSpec& tier) {
  if (tier.attach == StorageAttach::kComputeFabric) {
    return spec.server.nics.link.achieved().bytes_per_second() * spec.server.nics.count;
  }
  CTWIN_ASSERT(spec.storage && spec.storage->node_link, "parse_storage requires the storage network of such a tier");
  return spec.storage->node_link->bytes_per_second();
}

const char* to_string(NetworkTechnology technology) {
  return technology == NetworkTechnology::kRoce ? "roce" : "infiniband";
}

const char* to_string(SpineGroups groups) { return groups == SpineGroups::kPerRail ? "per_rail" : "shared"; }

const char* to_string(FabricKind kind) { return kind == FabricKind::kRailOptimized ? "rail_optimized" : "top_of_rack"; }

}  // namespace ctwin::fabric
