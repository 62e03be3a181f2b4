// The data loader beside the step (replay/data_pipeline.hpp): closed forms for the stall, the
// caps of the storage tier and the node's path, and seed 003's RapidFS figures.
#include "ctwin/replay/data_pipeline.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "ctwin/core/error.hpp"
#include "ctwin/fabric/cluster_spec.hpp"
#include "ctwin/replay/training_step.hpp"
#include "test_scenario.hpp"

namespace ctwin::replay {
namespace {

const std::string kRapidFs = std::string(CTWIN_SOURCE_DIR) + "/topologies/storage/dgx-h100-superpod-rapidfs.json";
constexpr double kGiB = 1024.0 * 1024 * 1024;

fabric::ClusterSpec rapidfs(long long servers = 20) {
  return fabric::load_cluster(kRapidFs, {"storage.tiers.0.servers=" + std::to_string(servers)});
}

DataPipelineSpec fixed_samples(double bytes) {
  DataPipelineSpec spec;
  spec.tier = "pfs";
  spec.sample_bytes_mean = bytes;
  return spec;
}

TEST(DataPipeline, SeedRapidFsTiersReproduceTheirAggregates) {
  // Seed 003: 15 GiB/s a node; 70 nodes measured at 1.03 TiB/s, 20 nodes at 302 GiB/s.
  EXPECT_NEAR(rapidfs(70).storage->find("pfs")->aggregate_read_Bps() / (1024 * kGiB), 1.03, 0.01);
  EXPECT_NEAR(rapidfs(20).storage->find("pfs")->aggregate_read_Bps() / kGiB, 302, 302 * 0.01);
}

TEST(DataPipeline, LoaderFasterThanTheStepAddsNothing) {
  const auto cluster = rapidfs();
  const auto t = time_data_pipeline(fixed_samples(8192 * 4), cluster, 1024, 4, 512, 5.0);
  EXPECT_GT(t.loader_s, 0);
  EXPECT_LT(t.loader_s, 5.0);
  EXPECT_EQ(t.exposed_s, 0);
}

TEST(DataPipeline, LoaderAtHalfTheRateStallsByTheShortfall) {
  // One node (8 GPUs, pp 1) reading through its 400 Gb/s storage ports: 20 RapidFS nodes offer
  // far more, so the node path sets r = 50 GB/s and read = k·b / r.
  const auto cluster = rapidfs();
  const double r = 400e9 / 8, k = 100, b = 1e9;
  const double step = k * b / r / 2;  // the loader needs twice the step
  const auto t = time_data_pipeline(fixed_samples(b), cluster, 8, 1, 100, step);
  EXPECT_EQ(t.reader_nodes, 1);
  EXPECT_DOUBLE_EQ(t.node_remote_Bps, r);
  EXPECT_EQ(t.limit, "node path");
  EXPECT_DOUBLE_EQ(t.cluster_read_cap_Bps, r);  // the smaller of the tier (322 GB/s) and the path
  EXPECT_DOUBLE_EQ(t.read_s, 2 * step);
  EXPECT_DOUBLE_EQ(t.exposed_s, step);  // bytes / throughput − step
}

TEST(DataPipeline, WithoutPrefetchTheStepWaitsForTheWholeLoader) {
  const auto cluster = rapidfs();
  auto spec = fixed_samples(1e6);
  spec.prefetch = 0;
  const auto t = time_data_pipeline(spec, cluster, 64, 2, 128, 10.0);
  EXPECT_GT(t.loader_s, 0);
  EXPECT_DOUBLE_EQ(t.exposed_s, t.loader_s);
}

TEST(DataPipeline, TheTiersAggregateCapsTheClustersReads) {
  // 1,024 nodes × 50 GB/s of ports = 51.2 TB/s against 70 × 15 GiB/s = 1.1 TB/s: the tier binds,
  // each node gets an equal share, and the readers together draw exactly the aggregate.
  const auto cluster = rapidfs(70);
  const double aggregate = 70 * 15 * kGiB;
  const auto t = time_data_pipeline(fixed_samples(64e6), cluster, 8192, 1, 4096, 1.0);
  EXPECT_EQ(t.reader_nodes, 1024);
  EXPECT_EQ(t.limit, "storage tier");
  EXPECT_DOUBLE_EQ(t.cluster_read_cap_Bps, aggregate);
  EXPECT_NEAR(t.node_remote_Bps, aggregate / 1024, 1e-6 * aggregate);
  EXPECT_NEAR(t.cluster_read_Bps, aggregate, 1e-9 * aggregate);
  EXPECT_NEAR(t.read_s, 4096 * 64e6 / aggregate, 1e-12);
}

TEST(DataPipeline, ComputeFabricAttachmentReadsOverTheComputeNics) {
  auto cluster = rapidfs();
  cluster.storage->tiers[0].attach = fabric::StorageAttach::kComputeFabric;
  const auto t = time_data_pipeline(fixed_samples(1e6), cluster, 8, 1, 8, 1.0);
  EXPECT_DOUBLE_EQ(t.node_path_Bps, 8 * 400e9 / 8);  // eight 400 Gb/s ConnectX-7
}

TEST(DataPipeline, PreprocessingSharesTheWorkers) {
  const auto cluster = rapidfs();
  auto spec = fixed_samples(1000);
  spec.cpu_s_per_sample = 0.02;
  spec.workers_per_node = 8;
  const auto t = time_data_pipeline(spec, cluster, 64, 1, 256, 0.1);
  EXPECT_EQ(t.reader_nodes, 8);
  EXPECT_DOUBLE_EQ(t.preprocess_s, 32 * 0.02 / 8);
  EXPECT_EQ(t.limit, "preprocess");
  EXPECT_EQ(t.exposed_s, 0);  // 0.08 s of preprocessing inside a 0.1 s step
}

TEST(DataPipeline, CacheHitsReadFromTheNodesDrives) {
  const auto cluster = rapidfs();
  auto spec = fixed_samples(1e9);
  spec.cache_tier = "nvme";
  spec.cache_hit_rate = 1;
  const auto all = time_data_pipeline(spec, cluster, 8, 1, 10, 1.0);
  EXPECT_DOUBLE_EQ(all.read_s, 10 * 1e9 / 52.8e9);
  EXPECT_EQ(all.limit, "cache");
  spec.cache_hit_rate = 0.5;  // both sources at once: the slower half sets the time
  const auto half = time_data_pipeline(spec, cluster, 8, 1, 10, 1.0);
  EXPECT_DOUBLE_EQ(half.read_s, std::max(5 * 1e9 / 50e9, 5 * 1e9 / 52.8e9));
}

TEST(DataPipeline, MetadataOpensShareTheTiersRate) {
  auto cluster = rapidfs();
  cluster.storage->tiers[0].metadata_ops_per_s = 1e5;
  auto spec = fixed_samples(1000);
  spec.files_per_sample = 4;
  const auto t = time_data_pipeline(spec, cluster, 64, 1, 1000, 1.0);  // 8 readers, 125 samples each
  EXPECT_DOUBLE_EQ(t.metadata_s, 125 * 4 / (1e5 / 8));
  EXPECT_EQ(t.limit, "metadata");
}

TEST(DataPipeline, SizeSpreadSlowsTheSlowestOfManyNodesOnly) {
  const auto cluster = rapidfs();
  auto spec = fixed_samples(1e6);
  const double fixed = time_data_pipeline(spec, cluster, 512, 1, 512, 1.0).bytes_per_node;
  spec.sample_bytes_stddev = 5e5;
  const auto spread = time_data_pipeline(spec, cluster, 512, 1, 512, 1.0);  // 64 readers, 8 samples each
  EXPECT_NEAR(spread.bytes_per_node, fixed + std::sqrt(8.0) * 5e5 * std::sqrt(2 * std::log(64.0)), 1e-3);
  EXPECT_DOUBLE_EQ(time_data_pipeline(spec, cluster, 8, 1, 512, 1.0).bytes_per_node, 512 * 1e6);  // one node
}

TEST(DataPipeline, ExposedIoJoinsTheStepAndItsBreakdown) {
  const std::vector<std::string> base{"network=analytical", "cluster=topologies/storage/dgx-h100-superpod-rapidfs.json"};
  const auto without = simulate_step(scenario(base)).report;
  auto fast = base;
  fast.push_back(R"(data={"tier": "pfs", "bytes_per_token": 4})");
  const auto with_fast = simulate_step(scenario(fast)).report;
  EXPECT_DOUBLE_EQ(with_fast.step_time_s, without.step_time_s);
  EXPECT_EQ(with_fast.breakdown.exposed_io_s, 0);
  ASSERT_TRUE(with_fast.data_pipeline.has_value());
  EXPECT_FALSE(without.data_pipeline.has_value());
  // 10 GB samples over 50 GB/s: pp 2 leaves 4 reading nodes of 32 samples each, 6.4 s a node,
  // above the step, which then lasts exactly as long as the loader.
  auto slow = base;
  slow.push_back(R"(data={"tier": "pfs", "sample_bytes": "10GB"})");
  const auto with_slow = simulate_step(scenario(slow)).report;
  ASSERT_GT(with_slow.data_pipeline->loader_s, without.step_time_s);
  EXPECT_DOUBLE_EQ(with_slow.data_pipeline->loader_s, 32 * 10e9 / 50e9);
  EXPECT_NEAR(with_slow.step_time_s, with_slow.data_pipeline->loader_s, 1e-9);
  EXPECT_NEAR(with_slow.breakdown.exposed_io_s, with_slow.data_pipeline->loader_s - without.step_time_s, 1e-9);
  EXPECT_NEAR(with_slow.tokens_per_s * with_slow.step_time_s, without.tokens_per_s * without.step_time_s, 1e-3);
}

// The storage-bearing scenario, whose cluster (a file) the overrides can reach into.
Scenario io_scenario(const std::vector<std::string>& overrides) {
  return load_scenario(std::string(CTWIN_SOURCE_DIR) + "/scenarios/io/llama3-70b-rapidfs.json", CTWIN_SOURCE_DIR,
                       overrides);
}

void expect_refused(const std::vector<std::string>& overrides, const std::string& field, bool io = false) {
  try {
    (void)(io ? io_scenario(overrides) : scenario(overrides));
    ADD_FAILURE() << "accepted; expected an error naming " << field;
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
  }
}

TEST(DataPipeline, BadInputNamesTheField) {
  const std::string cluster = "cluster=topologies/storage/dgx-h100-superpod-rapidfs.json";
  expect_refused({R"(data={"tier": "pfs", "bytes_per_token": 4})"}, "/data/tier");  // no storage in the cluster
  expect_refused({cluster, R"(data={"tier": "pfs", "sample_bytes": "0B"})"}, "/data/sample_bytes");
  expect_refused({cluster, R"(data={"tier": "pfs", "sample_bytes": 1000})"}, "/data/sample_bytes");
  expect_refused({cluster, R"(data={"tier": "nvme", "bytes_per_token": 4})"}, "/data/tier");
  expect_refused({cluster, R"(data={"tier": "pfs", "bytes_per_token": 4, "cache": {"tier": "pfs", "hit_rate": 0.5}})"},
                 "/data/cache/tier");
  expect_refused({cluster, R"(data={"tier": "pfs", "bytes_per_token": 4, "files_per_sample": 1})"},
                 "/data/files_per_sample");
  expect_refused({cluster, R"(data={"tier": "pfs", "bytes_per_token": 4, "prefetch": -1})"}, "/data/prefetch");
  expect_refused({cluster, R"(data={"tier": "pfs", "bytes_per_token": 4, "loader": 1})"}, "loader");
  expect_refused({"cluster.storage.tiers.0.read_per_server=15"}, "/storage/tiers/0/read_per_server", true);
  expect_refused({"cluster.storage.tiers.0.kind=tape"}, "/storage/tiers/0/kind", true);
  expect_refused({"cluster.storage.network=null"}, "/storage/tiers/0/attach", true);
  expect_refused({"cluster.storage.tiers.1.name=pfs"}, "/storage/tiers/1/name", true);
  expect_refused({"cluster.storage.tiers.1.servers=3"}, "/storage/tiers/1/servers", true);
  expect_refused({"cluster.storage.tiers=[]"}, "/storage/tiers", true);
}

}  // namespace
}  // namespace ctwin::replay
