#include "ctwin/analysis/checkpoint_model.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "ctwin/core/error.hpp"
#include "ctwin/core/json_reader.hpp"
#include "ctwin/core/unit_parse.hpp"
#include "ctwin/replay/checkpoint_save.hpp"
#include "ctwin/workload/parameter_count.hpp"

namespace ctwin::analysis {
namespace {

// A storage tier's aggregate bandwidth sums thousands of nodes' (peer memory: PB/s), beyond the
// 100 Tbps bound of one link; up to 1 Ebps, then it is a typo.
double aggregate_bytes_per_second(JsonObjectReader& r) {
  const nlohmann::json& value = r.required("aggregate");
  if (!value.is_string()) r.fail("aggregate", "expected a bandwidth with its unit, e.g. \"2TBps\"");
  Bandwidth rate;
  try {
    rate = parse_bandwidth(value.get<std::string>());
  } catch (const UnitError& e) {
    r.fail("aggregate", e.what());
  }
  const double bits = rate.bytes_per_second() * 8;
  if (!(bits >= 1e6 && bits <= 1e18)) {
    r.fail("aggregate", "bandwidth " + format_bandwidth(rate) + " is outside [1 Mbps, 1 Ebps]");
  }
  return rate.bytes_per_second();
}

TierBandwidth read_bandwidth(JsonObjectReader r) {
  TierBandwidth b;
  b.aggregate_Bps = aggregate_bytes_per_second(r);
  b.per_node_Bps = r.bandwidth("per_node").bytes_per_second();
  r.finish();
  return b;
}

StorageTier read_tier(JsonObjectReader r) {
  StorageTier t;
  t.name = r.string("name");
  t.description = r.string_or("description", "");
  t.write = read_bandwidth(r.object("write"));
  t.read = read_bandwidth(r.object("read"));
  t.latency_s = r.duration_up_to("latency", SimTime::from_seconds(3600)).seconds();
  if (r.has("snapshot_per_node")) t.snapshot_per_node_Bps = r.bandwidth("snapshot_per_node").bytes_per_second();
  t.sources = r.string_list("sources");
  r.finish();
  return t;
}

}  // namespace

std::vector<StorageTier> parse_storage_tiers(const nlohmann::json& document, const std::string& source) {
  if (!document.is_object()) throw InputError(source, "", "expected a JSON object");
  JsonObjectReader r(document, source, "");
  (void)r.optional("notes");
  const nlohmann::json& list = r.required("tiers");
  if (!list.is_array() || list.empty()) r.fail("tiers", "expected a non-empty array of storage tiers");
  std::vector<StorageTier> tiers;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string pointer = "/tiers/" + std::to_string(i);
    if (!list[i].is_object()) throw InputError(source, pointer, "expected an object");
    tiers.push_back(read_tier(JsonObjectReader(list[i], source, pointer)));
    for (std::size_t j = 0; j < i; ++j) {
      if (tiers[j].name == tiers[i].name) throw InputError(source, pointer + "/name", "duplicate tier '" + tiers[i].name + "'");
    }
  }
  r.finish();
  return tiers;
}

std::vector<StorageTier> load_storage_tiers(const std::filesystem::path& path) {
  return parse_storage_tiers(load_json_file(path), path.string());
}

StorageTier storage_tier_of_cluster(const fabric::ClusterSpec& cluster, const std::string& name,
                                    const std::string& origin) {
  const fabric::StorageTierSpec* spec = cluster.storage ? cluster.storage->find(name) : nullptr;
  if (spec == nullptr || !spec->shared()) {
    throw InputError(origin, "", "'" + name + "' is not a shared storage tier of the cluster " + cluster.name +
                                     " (its storage.tiers, kind parallel_fs or object_store)");
  }
  if (!(spec->write_per_server.bytes_per_second() > 0)) {
    throw InputError(origin, "", "storage tier '" + name + "' of " + cluster.file +
                                     " gives no write_per_server: a checkpoint's write time needs it");
  }
  StorageTier t;
  t.name = "cluster:" + name;
  t.description = std::string("the cluster's ") + fabric::to_string(spec->kind) + " tier '" + name + "'";
  const double path = fabric::storage_node_path_Bps(cluster, *spec);
  t.write = {static_cast<double>(spec->servers) * spec->write_per_server.bytes_per_second(), path};
  t.read = {spec->aggregate_read_Bps(), path};
  t.sources = spec->sources;
  return t;
}

CheckpointSize checkpoint_size(const replay::Scenario& scenario, long long job_nodes, const CheckpointOptions& options) {
  return replay::checkpoint_size(scenario, job_nodes, replay::checkpoint_bytes_per_parameter(options.fp32_master));
}

CheckpointCost checkpoint_cost(const CheckpointSize& size, const StorageTier& tier, long long job_nodes) {
  CTWIN_ASSERT(job_nodes > 0, "a job has at least one node");
  CheckpointCost c;
  c.size = size;
  c.tier = tier.name;
  c.asynchronous = tier.asynchronous();
  const double write = replay::storage_transfer_s(size.bytes, size.writer_nodes, tier.write.aggregate_Bps, tier.write.per_node_Bps);
  if (c.asynchronous) {
    c.blocking_s = tier.latency_s + size.bytes_per_writer / tier.snapshot_per_node_Bps;
    c.persist_s = write;
  } else {
    c.blocking_s = tier.latency_s + write;
  }
  c.load_s = tier.latency_s + replay::storage_transfer_s(size.bytes, job_nodes, tier.read.aggregate_Bps, tier.read.per_node_Bps);
  return c;
}

}  // namespace ctwin::analysis
