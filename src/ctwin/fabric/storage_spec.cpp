#include "ctwin/fabric/storage_spec.hpp"

#include <algorithm>
#include <set>

#include <nlohmann/json.hpp>

#include "ctwin/core/error.hpp"
#include "ctwin/core/json_reader.hpp"

namespace ctwin::fabric {
namespace {

// Beyond the largest published systems (hundreds of servers for a 30,000-card cluster, seed 003;
// 16 drives in a server): a typo's extra zeros.
constexpr long long kMaxStorageServers = 100000;
constexpr long long kMaxDrivesPerNode = 64;

StorageKind read_kind(JsonObjectReader& r) {
  const std::string kind = r.choice("kind", {"parallel_fs", "object_store", "local_nvme", "host_memory"});
  return kind == "parallel_fs"    ? StorageKind::kParallelFs
         : kind == "object_store" ? StorageKind::kObjectStore
         : kind == "local_nvme"   ? StorageKind::kLocalNvme
                                  : StorageKind::kHostMemory;
}

void read_shared(JsonObjectReader& r, StorageTierSpec& tier, bool has_network) {
  const std::string attach = r.choice("attach", {"storage_network", "compute_fabric"});
  tier.attach = attach == "storage_network" ? StorageAttach::kStorageNetwork : StorageAttach::kComputeFabric;
  if (tier.attach == StorageAttach::kStorageNetwork && !has_network) {
    r.fail("attach", "storage_network needs storage.network.node_bandwidth (a node's storage ports together)");
  }
  tier.servers = r.integer("servers", 1, kMaxStorageServers);
  tier.read_per_server = r.bandwidth("read_per_server");
  if (r.has("write_per_server")) tier.write_per_server = r.bandwidth("write_per_server");
  // A system figure up to the reader's 100 Tbps (12.5 TB/s): above the ~10 TiB/s designed for a
  // 30,000-card cluster (seed 003).
  if (r.has("aggregate_read")) tier.aggregate_read_cap_Bps = r.bandwidth("aggregate_read").bytes_per_second();
  if (r.has("metadata_ops_per_s")) tier.metadata_ops_per_s = r.number("metadata_ops_per_s", 1, 1e12);
  tier.part = r.string_or("part", "");
  tier.part_units = tier.servers;
  for (const char* key : {"read_per_node", "write_per_node", "drives_per_node"}) {
    if (r.has(key)) r.fail(key, "only a node-local tier (local_nvme, host_memory) has it");
  }
}

void read_local(JsonObjectReader& r, StorageTierSpec& tier) {
  tier.attach = StorageAttach::kInNode;
  tier.read_per_node = r.bandwidth("read_per_node");
  if (r.has("write_per_node")) tier.write_per_node = r.bandwidth("write_per_node");
  tier.part = r.string_or("part", "");
  if (tier.kind == StorageKind::kLocalNvme) {
    tier.part_units = r.integer_or("drives_per_node", 1, kMaxDrivesPerNode, 1);
  }
  for (const char* key : {"attach", "servers", "read_per_server", "write_per_server", "aggregate_read",
                          "metadata_ops_per_s"}) {
    if (r.has(key)) r.fail(key, "only a shared tier (parallel_fs, object_store) has it");
  }
  if (tier.kind == StorageKind::kHostMemory && r.has("drives_per_node")) {
    r.fail("drives_per_node", "only a local_nvme tier has drives");
  }
}

StorageTierSpec read_tier(JsonObjectReader r, bool has_network) {
  StorageTierSpec tier;
  tier.name = r.string("name");
  if (tier.name.empty()) r.fail("name", "must not be empty");
  tier.kind = read_kind(r);
  if (tier.shared()) {
    read_shared(r, tier, has_network);
  } else {
    read_local(r, tier);
  }
  tier.sources = r.string_list_or_empty("sources");
  r.finish();
  return tier;
}

}  // namespace

double StorageTierSpec::aggregate_read_Bps() const {
  const double sum = static_cast<double>(servers) * read_per_server.bytes_per_second();
  return aggregate_read_cap_Bps ? std::min(sum, *aggregate_read_cap_Bps) : sum;
}

const StorageTierSpec* StorageSpec::find(const std::string& name) const {
  for (const auto& tier : tiers) {
    if (tier.name == name) return &tier;
  }
  return nullptr;
}

StorageSpec parse_storage(const nlohmann::json& object, const std::string& source, const std::string& pointer) {
  if (!object.is_object()) throw InputError(source, pointer, "expected an object {network, tiers}");
  JsonObjectReader r(object, source, pointer);
  StorageSpec spec;
  if (const auto* network = r.optional("network"); network != nullptr && !network->is_null()) {
    JsonObjectReader link(*network, source, r.pointer_to("network"));
    spec.node_link = link.bandwidth("node_bandwidth");
    (void)link.string_list_or_empty("sources");
    link.finish();
  }
  const nlohmann::json& list = r.required("tiers");
  if (!list.is_array() || list.empty()) r.fail("tiers", "must be a non-empty array of storage tiers");
  std::set<std::string> names;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string at = pointer + "/tiers/" + std::to_string(i);
    if (!list[i].is_object()) throw InputError(source, at, "must be an object");
    StorageTierSpec tier = read_tier(JsonObjectReader(list[i], source, at), spec.node_link.has_value());
    if (!names.insert(tier.name).second) {
      throw InputError(source, at + "/name", "'" + tier.name + "' is given twice");
    }
    spec.tiers.push_back(std::move(tier));
  }
  r.finish();
  return spec;
}

const char* to_string(StorageKind kind) {
  switch (kind) {
    case StorageKind::kParallelFs: return "parallel_fs";
    case StorageKind::kObjectStore: return "object_store";
    case StorageKind::kLocalNvme: return "local_nvme";
    case StorageKind::kHostMemory: return "host_memory";
  }
  return "?";
}

const char* to_string(StorageAttach attach) {
  switch (attach) {
    case StorageAttach::kStorageNetwork: return "storage_network";
    case StorageAttach::kComputeFabric: return "compute_fabric";
    case StorageAttach::kInNode: return "node";
  }
  return "?";
}

}  // namespace ctwin::fabric
