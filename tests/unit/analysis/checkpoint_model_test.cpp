// Checkpoint size and time: bytes per parameter, writers from the ZeRO stage, and the closed form
// of the write and load times.

#include "ctwin/analysis/checkpoint_model.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "ctwin/core/error.hpp"
#include "ctwin/replay/scenario.hpp"
#include "ctwin/workload/parameter_count.hpp"
#include "source_root.hpp"

namespace ctwin::analysis {
namespace {

StorageTier tier(double aggregate, double per_node) {
  StorageTier t;
  t.name = "t";
  t.write = {aggregate, per_node};
  t.read = {2 * aggregate, 2 * per_node};
  t.latency_s = 5;
  return t;
}

TEST(CheckpointModel, SizeIsFourteenBytesPerParameterAndEveryNodeWritesWithZero) {
  const replay::Scenario s = replay::load_scenario(kRoot + "/scenarios/llama3-405b-h100-16k.json", kRoot);
  const double params = static_cast<double>(workload::count_parameters(s.model).total);
  const CheckpointSize size = checkpoint_size(s, 2048);
  EXPECT_DOUBLE_EQ(size.bytes, 14 * params);
  EXPECT_EQ(size.writer_nodes, 2048);  // distributed optimizer: every node holds a shard
  EXPECT_NEAR(size.bytes / 1e12, 5.67, 0.05);  // 405B × 14 B
  const CheckpointSize no_master = checkpoint_size(s, 2048, {.fp32_master = false});
  EXPECT_DOUBLE_EQ(no_master.bytes, 10 * params);
}

TEST(CheckpointModel, WithoutZeroOnlyTheFirstReplicaWrites) {
  const replay::Scenario s =
      replay::load_scenario(kRoot + "/scenarios/default.json", kRoot, {"parallel.distributed_optimizer=false", "parallel.zero=0"});
  // tp 2 · pp 2 = 4 GPUs: one node of 8 holds a whole replica.
  EXPECT_EQ(checkpoint_size(s, 8).writer_nodes, 1);
}

TEST(CheckpointModel, TimesFollowTheSlowerOfAggregateAndPerNode) {
  CheckpointSize size;
  size.bytes = 4e12;
  size.writer_nodes = 100;
  size.bytes_per_writer = 4e10;
  // Aggregate-bound: 4 TB at 1 TB/s = 4 s; per node 40 GB at 100 GB/s = 0.4 s.
  CheckpointCost c = checkpoint_cost(size, tier(1e12, 1e11), 100);
  EXPECT_DOUBLE_EQ(c.blocking_s, 5 + 4);
  EXPECT_DOUBLE_EQ(c.load_s, 5 + std::max(4e12 / 2e12, 4e10 / 2e11));
  EXPECT_FALSE(c.asynchronous);
  EXPECT_EQ(c.persist_s, 0);
  // Per-node-bound: 40 GB at 1 GB/s = 40 s.
  c = checkpoint_cost(size, tier(1e13, 1e9), 100);
  EXPECT_DOUBLE_EQ(c.blocking_s, 5 + 40);
  // Asynchronous: blocks for the snapshot only; the write becomes the time to durability.
  StorageTier async = tier(1e13, 1e9);
  async.snapshot_per_node_Bps = 2e10;
  c = checkpoint_cost(size, async, 100);
  EXPECT_TRUE(c.asynchronous);
  EXPECT_DOUBLE_EQ(c.blocking_s, 5 + 2);
  EXPECT_DOUBLE_EQ(c.persist_s, 40);
}

TEST(CheckpointModel, ClusterStorageTierFeedsTheCheckpointClosedForm) {
  // The 20-node RapidFS tier with an assumed 10 GiB/s of writes per server, on 400 Gb/s of
  // storage ports per node: the write aggregate is 200 GiB/s, each node's path 50 GB/s.
  const replay::Scenario s = replay::load_scenario(
      kRoot + "/scenarios/io/llama3-70b-rapidfs.json", kRoot, {"cluster.storage.tiers.0.write_per_server=10GiBps"});
  const StorageTier t = storage_tier_of_cluster(s.cluster, "pfs", "--storage");
  const double gib = 1024.0 * 1024 * 1024;
  EXPECT_EQ(t.name, "cluster:pfs");
  EXPECT_DOUBLE_EQ(t.write.aggregate_Bps, 20 * 10 * gib);
  EXPECT_DOUBLE_EQ(t.read.aggregate_Bps, 20 * 15 * gib);
  EXPECT_DOUBLE_EQ(t.write.per_node_Bps, 50e9);
  EXPECT_FALSE(t.asynchronous());
  const CheckpointSize size = checkpoint_size(s, 128);
  const CheckpointCost cost = checkpoint_cost(size, t, 128);
  EXPECT_DOUBLE_EQ(cost.blocking_s, std::max(size.bytes / (200 * gib), size.bytes_per_writer / 50e9));
  EXPECT_DOUBLE_EQ(cost.load_s, std::max(size.bytes / (300 * gib), size.bytes / 128 / 50e9));
  // A tier without write figures, a node-local one, or none at all is refused, naming the flag.
  const replay::Scenario bundled = replay::load_scenario(kRoot + "/scenarios/io/llama3-70b-rapidfs.json", kRoot);
  for (const std::string name : {"pfs", "nvme", "tape"}) {
    try {
      (void)storage_tier_of_cluster(bundled.cluster, name, "--storage");
      ADD_FAILURE() << name << " accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("--storage"), std::string::npos) << e.what();
    }
  }
}

TEST(CheckpointModel, BundledTiersLoad) {
  const auto tiers = load_storage_tiers(kRoot + "/models/reliability/storage.json");
  ASSERT_GE(tiers.size(), 3u);
  EXPECT_EQ(tiers[0].name, "pfs");
  EXPECT_FALSE(tiers[0].asynchronous());
  EXPECT_TRUE(tiers[1].asynchronous());
}

}  // namespace
}  // namespace ctwin::analysis
