// The loader's reads on the flow fabric (replay/storage_reads.hpp): an idle fabric gives the
// bottleneck's closed form, bytes are conserved, a tier on its own network keeps the closed
// form, and reads beside a step's collectives slow it by no more than they occupy the links.
#include "ctwin/replay/storage_reads.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <string>

#include "ctwin/fabric/cluster_spec.hpp"
#include "ctwin/fabric/storage_routes.hpp"
#include "ctwin/replay/training_step.hpp"
#include "test_scenario.hpp"

namespace ctwin::replay {
namespace {

const std::string kRapidFsFile = std::string(CTWIN_SOURCE_DIR) + "/topologies/storage/dgx-h100-superpod-rapidfs.json";

fabric::ClusterSpec compute_attached(long long servers) {
  auto cluster = fabric::load_cluster(kRapidFsFile, {"storage.tiers.0.servers=" + std::to_string(servers),
                                                     "storage.tiers.0.attach=compute_fabric"});
  return cluster;
}

// The closed form of an idle fabric: each reader's rate is the smallest of its share of the
// tier and its NICs' paths down from the top switch (each rail at its slowest link), and the
// last byte arrives the longest path's latency after the drain.
double idle_closed_form_s(const fabric::Fabric& fabric, const fabric::StorageTierSpec& tier, int readers, double bytes) {
  double path_Bps = 0;
  double latency_s = 0;
  const int nics = fabric.spec().server.nics.count;
  for (int nic = 0; nic < nics; ++nic) {
    double rail = std::numeric_limits<double>::infinity();
    for (long long s = 0; s < tier.servers; ++s) {
      double path_latency = 0;
      for (const auto link : fabric::storage_read_route(fabric, 0, nic, static_cast<std::uint64_t>(s))) {
        rail = std::min(rail, fabric.link(link).achieved().bytes_per_second());
        path_latency += fabric.link(link).latency.seconds();
      }
      latency_s = std::max(latency_s, path_latency);
    }
    path_Bps += rail;
  }
  const double rate = std::min(tier.aggregate_read_Bps() / readers, path_Bps);
  return bytes / rate + latency_s;
}

TEST(StorageReads, IdleFabricReadsAtTheTierOrThePathBottleneck) {
  // 2 RapidFS nodes (32.2 GB/s) for 4 readers: the tier binds. 70 (1.13 TB/s) for one reader:
  // its eight 400 Gb/s NICs do. Byte counts are whole, so delivered = requested exactly.
  for (const auto& [servers, readers] : {std::pair{2LL, 4}, std::pair{70LL, 1}}) {
    const fabric::Fabric fabric(compute_attached(servers), 64);
    const auto& tier = *fabric.spec().storage->find("pfs");
    std::vector<int> nodes;
    for (int n = 0; n < readers; ++n) nodes.push_back(n);
    const double bytes = 22.4e9;  // whole bytes in every part: 16 and 560 parts a node
    const auto read = idle_fabric_read(fabric, tier, nodes, bytes);
    EXPECT_EQ(read.requested, Bytes(static_cast<std::int64_t>(bytes) * readers));
    EXPECT_EQ(read.delivered, read.requested);
    EXPECT_EQ(read.flows, static_cast<std::size_t>(readers * 8 * servers));
    EXPECT_NEAR(read.read_s, idle_closed_form_s(fabric, tier, readers, bytes), 1e-9 * read.read_s) << servers;
  }
  // The node's ports bound it where the tier does not: 8 × 50 GB/s.
  const fabric::Fabric fabric(compute_attached(70), 64);
  EXPECT_GT(idle_fabric_read(fabric, *fabric.spec().storage->find("pfs"), {0}, 20e9).read_s, 20e9 / 400e9);
}

TEST(StorageReads, ReadsEnterAtTheTopSwitchAndEndAtTheNodesNic) {
  const fabric::Fabric fabric(compute_attached(2), 512);  // 64 nodes in 2 scalable units: spines
  for (const int node : {0, 5, 63}) {
    const auto path = fabric::storage_read_route(fabric, node, 3, 1);
    ASSERT_GE(path.size(), 3U);
    EXPECT_EQ(fabric.link(path.front()).kind, fabric::LinkKind::kLeafSpine);
    EXPECT_TRUE(fabric::is_fabric_switch(fabric.vertex_kind(fabric.link(path.front()).from)));
    EXPECT_EQ(path[1], fabric::reverse(fabric.access_link(node, 3)));
  }
}

// The default scenario's Llama 3 8B split (64 GPUs, tp 2, pp 2) on the storage-bearing build,
// whose cluster file the overrides reach into.
const std::vector<std::string> kIoBase{"model=models/llm/llama3-8b.json", "gpus=64",        "training.global_batch=128",
                                       "parallel.tp=2",                   "parallel.pp=2",  "parallel.vpp=1",
                                       "parallel.schedule=1f1b",          "network=flow",   "data=null"};

Scenario io_step(const std::vector<std::string>& base, const std::vector<std::string>& more) {
  auto overrides = base;
  overrides.insert(overrides.end(), more.begin(), more.end());
  return load_scenario(std::string(CTWIN_SOURCE_DIR) + "/scenarios/io/llama3-70b-rapidfs.json", CTWIN_SOURCE_DIR,
                       overrides);
}

TEST(StorageReads, ATierOnItsOwnNetworkKeepsTheClosedForm) {
  const auto s = io_step(kIoBase, {R"(data={"tier": "pfs", "sample_bytes": "10GB"})"});
  const auto step = simulate_step(s);
  const auto& io = *step.report.data_pipeline;
  EXPECT_FALSE(io.fabric_read_s.has_value());
  const auto closed = time_data_pipeline(*s.data, s.cluster, s.gpus, s.split.pp, s.split.global_batch,
                                         step.replay.step_time.seconds());
  EXPECT_EQ(io.read_s, closed.read_s);
  EXPECT_EQ(io.exposed_s, closed.exposed_s);
}

TEST(StorageReads, ALoaderFasterThanTheStepAddsNothingOnFlow) {
  const auto s = io_step(kIoBase, {"cluster.storage.tiers.0.attach=compute_fabric",
                                         R"(data={"tier": "pfs", "bytes_per_token": 4})"});
  const auto report = simulate_step(s).report;
  ASSERT_TRUE(report.data_pipeline->fabric_read_s.has_value());
  EXPECT_GT(*report.data_pipeline->fabric_read_s, 0);
  EXPECT_LT(report.data_pipeline->loader_s, report.step_time_s);
  EXPECT_EQ(report.breakdown.exposed_io_s, 0);
}

TEST(StorageReads, ContendedReadsSlowTheStepByNoMoreThanTheyOccupyTheNics) {
  // 1 GB samples: 32 per reading node (pp 2: 4 nodes), each node drawing 80.5 GB/s of the
  // 20-server tier through the NICs its DP and pipeline traffic use, for 0.4 s: the step grows,
  // by less than the reads would hold the NICs alone (32 GB over 400 GB/s).
  const auto plain = simulate_step(io_step(kIoBase, {"cluster.storage.tiers.0.attach=compute_fabric"}));
  const auto s = io_step(kIoBase, {"cluster.storage.tiers.0.attach=compute_fabric",
                                         R"(data={"tier": "pfs", "sample_bytes": "1GB"})"});
  const auto step = simulate_step(s);
  const auto& io = *step.report.data_pipeline;
  ASSERT_TRUE(io.fabric_read_s.has_value());
  const auto closed = time_data_pipeline(*s.data, s.cluster, s.gpus, s.split.pp, s.split.global_batch, 0);
  EXPECT_GE(*io.fabric_read_s, closed.read_s * (1 - 1e-9));  // sharing only slows the reads
  const double growth = step.replay.step_time.seconds() - plain.replay.step_time.seconds();
  EXPECT_GT(growth, 0);
  EXPECT_LE(growth, io.bytes_per_node / io.node_path_Bps);
  EXPECT_DOUBLE_EQ(step.report.step_time_s, step.replay.step_time.seconds() + io.exposed_s);
  // Deterministic: the same bytes twice.
  const auto again = simulate_step(s);
  EXPECT_EQ(again.replay.step_time, step.replay.step_time);
  EXPECT_EQ(again.report.data_pipeline->fabric_read_s, io.fabric_read_s);
}

TEST(StorageReads, WithoutPrefetchTheReadsRunAloneAndTheStepWaitsForThem) {
  const auto s = io_step(kIoBase, {"cluster.storage.tiers.0.attach=compute_fabric",
                                         R"(data={"tier": "pfs", "sample_bytes": "1GB", "prefetch": 0})"});
  const auto step = simulate_step(s);
  const auto& io = *step.report.data_pipeline;
  ASSERT_TRUE(io.fabric_read_s.has_value());
  EXPECT_DOUBLE_EQ(io.exposed_s, io.loader_s);
  EXPECT_GE(*io.fabric_read_s, io.bytes_per_node / io.node_remote_Bps);
}

}  // namespace
}  // namespace ctwin::replay
