#include "ctwin/replay/data_pipeline.hpp"

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

#include "ctwin/core/error.hpp"
#include "ctwin/core/int_math.hpp"
#include "ctwin/core/json_reader.hpp"

namespace ctwin::replay {
namespace {

// Bounds that catch typos, not designs: a sample above 1 PiB is caught by the size reader; a
// sample of a thousand files, an hour of CPU per sample, ten thousand loader processes per node.
constexpr double kMaxFilesPerSample = 1000;
constexpr long long kMaxWorkers = 10000;
constexpr long long kMaxPrefetch = 1024;
constexpr double kMaxBytesPerToken = 64;
// Reads on the fabric take their path's latency (microseconds) on top of the closed form; the
// fabric is named the limit only when sharing slowed them by more than this share.
constexpr double kFabricLimitShare = 1e-3;

void read_sample_size(JsonObjectReader& r, DataPipelineSpec& spec, std::int64_t seq_len) {
  // null counts as absent, so that `--set data.bytes_per_token=null --set data.sample_bytes=2MiB` switches form.
  const nlohmann::json* sample = r.optional("sample_bytes");
  const nlohmann::json* token = r.optional("bytes_per_token");
  const bool by_sample = sample != nullptr && !sample->is_null(), by_token = token != nullptr && !token->is_null();
  if (by_sample == by_token) {
    r.fail("sample_bytes", "give exactly one of sample_bytes (\"2MiB\" or {\"mean\", \"stddev\"}) and bytes_per_token");
  }
  if (by_token) {
    spec.sample_bytes_mean = r.number("bytes_per_token", 0.125, kMaxBytesPerToken) * static_cast<double>(seq_len);
    return;
  }
  const nlohmann::json& value = r.required("sample_bytes");
  if (value.is_object()) {
    JsonObjectReader size(value, r.source(), r.pointer_to("sample_bytes"));
    spec.sample_bytes_mean = static_cast<double>(size.bytes("mean").count());
    // No spread is a fixed size (the size reader refuses zero, so it is left out, not "0B").
    if (size.has("stddev")) spec.sample_bytes_stddev = static_cast<double>(size.bytes("stddev").count());
    size.finish();
  } else {
    spec.sample_bytes_mean = static_cast<double>(r.bytes("sample_bytes").count());
  }
}

}  // namespace

DataPipelineSpec read_data_pipeline(const nlohmann::json& object, const std::string& source,
                                    const fabric::ClusterSpec& cluster, std::int64_t seq_len) {
  if (!object.is_object()) throw InputError(source, "/data", "expected an object {tier, sample_bytes, ...}");
  JsonObjectReader r(object, source, "/data");
  DataPipelineSpec spec;
  spec.tier = r.string("tier");
  const fabric::StorageTierSpec* tier = cluster.storage ? cluster.storage->find(spec.tier) : nullptr;
  if (tier == nullptr) {
    r.fail("tier", "'" + spec.tier + "' is not a storage tier of the cluster (its storage.tiers" +
                       (cluster.storage ? ")" : ": the cluster has no storage object)"));
  }
  if (!tier->shared()) r.fail("tier", "'" + spec.tier + "' is node-local; samples come from a shared tier (cache names the local one)");
  read_sample_size(r, spec, seq_len);
  spec.files_per_sample = r.number_or("files_per_sample", 0, kMaxFilesPerSample, 0);
  if (spec.files_per_sample > 0 && !tier->metadata_ops_per_s) {
    r.fail("files_per_sample", "needs the tier's metadata_ops_per_s (storage tier '" + spec.tier + "')");
  }
  spec.cpu_s_per_sample =
      r.has("cpu_time_per_sample") ? r.duration_up_to("cpu_time_per_sample", SimTime::from_seconds(3600)).seconds() : 0;
  spec.workers_per_node = r.integer_or("workers_per_node", 1, kMaxWorkers, 1);
  spec.prefetch = r.integer_or("prefetch", 0, kMaxPrefetch, 2);
  if (auto cache = r.optional_object("cache")) {
    spec.cache_tier = cache->string("tier");
    const fabric::StorageTierSpec* local = cluster.storage->find(spec.cache_tier);
    if (local == nullptr || local->shared()) {
      cache->fail("tier", "'" + spec.cache_tier + "' is not a node-local tier (local_nvme, host_memory) of the cluster");
    }
    spec.cache_hit_rate = cache->number("hit_rate", 0, 1);
    cache->finish();
  }
  r.finish();
  return spec;
}

DataPipelineTiming time_data_pipeline(const DataPipelineSpec& spec, const fabric::ClusterSpec& cluster,
                                      std::int64_t gpus, std::int64_t pp, std::int64_t global_batch, double step_s,
                                      std::optional<double> fabric_read_s) {
  CTWIN_ASSERT(cluster.storage.has_value(), "a data pipeline reads from the cluster's storage");
  const fabric::StorageTierSpec* tier = cluster.storage->find(spec.tier);
  CTWIN_ASSERT(tier != nullptr && tier->shared(), "read_data_pipeline checked the tier");
  DataPipelineTiming t;
  t.reader_nodes = std::max<long long>(1, ceil_div(gpus / std::max<std::int64_t>(pp, 1), cluster.server.gpus));
  const double readers = static_cast<double>(t.reader_nodes);
  t.samples_per_node = static_cast<double>(global_batch) / readers;
  const double k = t.samples_per_node;
  const double z = t.reader_nodes > 1 ? std::sqrt(2 * std::log(readers)) : 0.0;
  const double b = spec.sample_bytes_mean + spec.sample_bytes_stddev * z / std::sqrt(k);
  t.bytes_per_node = k * b;

  t.node_path_Bps = fabric::storage_node_path_Bps(cluster, *tier);
  const double aggregate = tier->aggregate_read_Bps();
  t.node_remote_Bps = std::min(t.node_path_Bps, aggregate / readers);
  t.cluster_read_cap_Bps = std::min(aggregate, readers * t.node_path_Bps);

  const double h = spec.cache_tier.empty() ? 0.0 : spec.cache_hit_rate;
  const double closed_remote_s = k * (1 - h) * b / t.node_remote_Bps;
  t.fabric_read_s = fabric_read_s;
  const double remote_s = fabric_read_s.value_or(closed_remote_s);
  double cache_s = 0;
  if (h > 0) cache_s = k * h * b / cluster.storage->find(spec.cache_tier)->read_per_node.bytes_per_second();
  t.read_s = std::max(remote_s, cache_s);
  if (spec.files_per_sample > 0) t.metadata_s = k * (1 - h) * spec.files_per_sample / (*tier->metadata_ops_per_s / readers);
  t.preprocess_s = k * spec.cpu_s_per_sample / static_cast<double>(spec.workers_per_node);
  t.loader_s = std::max({t.read_s, t.metadata_s, t.preprocess_s});
  t.cluster_read_Bps = t.loader_s > 0 ? readers * k * (1 - h) * b / t.loader_s : 0;

  if (t.loader_s <= 0) {
    t.limit = "none";
  } else if (t.loader_s == t.preprocess_s) {
    t.limit = "preprocess";
  } else if (t.loader_s == t.metadata_s) {
    t.limit = "metadata";
  } else if (t.loader_s == cache_s && cache_s > remote_s) {
    t.limit = "cache";
  } else if (fabric_read_s && remote_s > closed_remote_s * (1 + kFabricLimitShare)) {
    t.limit = "fabric";  // the shared links held the reads below the tier's and the path's rates
  } else {
    t.limit = t.node_remote_Bps < t.node_path_Bps ? "storage tier" : "node path";
  }
  t.exposed_s = spec.prefetch == 0 ? t.loader_s : std::max(0.0, t.loader_s - step_s);
  return t;
}

}  // namespace ctwin::replay
