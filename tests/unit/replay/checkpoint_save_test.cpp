// A scenario's checkpoint in the step (replay/checkpoint_save.hpp, checkpoint_step.hpp): bytes
// follow parameters × bytes per parameter; the closed form is the tier's or the node path's
// bottleneck; on an idle fabric the simulated save gives that closed form with every byte
// delivered; a blocking save stalls for exactly its time; an async save costs only its host
// copy where the write shares no link with the step, and slows a step whose DP traffic crosses
// the same NICs by no more than the write lasts; a tier on its own network keeps the closed form.
#include "ctwin/replay/checkpoint_save.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ctwin/core/error.hpp"
#include "ctwin/replay/training_step.hpp"
#include "ctwin/workload/parameter_count.hpp"

namespace ctwin::replay {
namespace {

// Llama 3 8B on 64 GPUs of the RapidFS build (tp 2, pp 2, dp 16), its tier given a write rate
// (10 GiB/s a server: an assumption of the test, no vendor figure).
const std::vector<std::string> kCheckpointBase{
    "model=models/llm/llama3-8b.json", "gpus=64",      "training.global_batch=128", "parallel.tp=2",
    "parallel.pp=2",                   "parallel.vpp=1", "parallel.schedule=1f1b",  "data=null",
    "cluster.storage.tiers.0.write_per_server=10GiBps"};

Scenario checkpoint_step(const std::vector<std::string>& more) {
  auto overrides = kCheckpointBase;
  overrides.insert(overrides.end(), more.begin(), more.end());
  return load_scenario(std::string(CTWIN_SOURCE_DIR) + "/scenarios/io/llama3-70b-rapidfs.json", CTWIN_SOURCE_DIR,
                       overrides);
}

std::string saves(const std::string& mode, int every = 50) {
  return R"(checkpoint={"every_steps": )" + std::to_string(every) + R"(, "mode": ")" + mode + R"(", "tier": "pfs"})";
}

TEST(CheckpointSave, BytesAreParametersTimesBytesPerParameter) {
  for (const auto& [field, per_parameter] : {std::pair{std::string(), 14.0}, std::pair{std::string("10"), 10.0}}) {
    auto s = checkpoint_step({"network=analytical", saves("blocking")});
    if (!field.empty()) s = checkpoint_step({"network=analytical", saves("blocking"), "checkpoint.bytes_per_parameter=" + field});
    const auto c = *simulate_step(s).report.checkpoint;
    const double parameters = static_cast<double>(workload::count_parameters(s.model).total);
    EXPECT_EQ(c.size.parameters, parameters);
    EXPECT_EQ(c.size.bytes, parameters * per_parameter);
    EXPECT_EQ(c.size.writer_nodes, 8);  // ZeRO 1: every node of the job writes its shard
    EXPECT_DOUBLE_EQ(c.size.bytes_per_writer * 8, c.size.bytes);
  }
}

TEST(CheckpointSave, BlockingStallsForTheClosedFormSave) {
  // 20 servers × 10 GiB/s = 214.7 GB/s for 8 writers (26.8 GB/s each, below their 400 GB/s of
  // storage ports): the tier binds. 1,000 servers: the ports do.
  for (const auto& [servers, limit] : {std::pair{20, "tier"}, std::pair{1000, "fabric"}}) {
    const auto s = checkpoint_step({"network=analytical", saves("blocking"),
                                    "cluster.storage.tiers.0.servers=" + std::to_string(servers)});
    const auto report = simulate_step(s).report;
    const auto& c = *report.checkpoint;
    const double tier_Bps = servers * 10.0 * (1LL << 30);
    EXPECT_DOUBLE_EQ(c.save_s, std::max(c.size.bytes / tier_Bps, c.size.bytes_per_writer / c.node_path_Bps));
    EXPECT_EQ(c.limit, limit);
    EXPECT_EQ(c.stall_s, c.save_s);
    EXPECT_DOUBLE_EQ(c.amortised_s, c.save_s / 50);
    EXPECT_FALSE(c.fabric.has_value());
  }
}

TEST(CheckpointSave, IdleFabricSaveIsTheClosedFormWithEveryByteDelivered) {
  const auto s = checkpoint_step({"network=flow", "cluster.storage.tiers.0.attach=compute_fabric", saves("blocking")});
  const auto step = simulate_step(s);
  const auto& c = *step.report.checkpoint;
  ASSERT_TRUE(c.fabric.has_value());
  EXPECT_EQ(c.fabric->delivered, c.fabric->requested);
  // Whole bytes a node, split over 8 NICs × 20 servers: within a byte a writer of the total.
  EXPECT_NEAR(static_cast<double>(c.fabric->requested.count()), c.size.bytes, 8);
  EXPECT_EQ(c.fabric->flows, 8U * 8U * 20U);
  // The tier binds; the path adds its latency (microseconds).
  EXPECT_GE(c.save_s, c.closed_form_save_s);
  EXPECT_NEAR(c.save_s, c.closed_form_save_s, 1e-4);
  EXPECT_EQ(c.limit, "tier");
  EXPECT_EQ(c.stall_s, c.save_s);
  EXPECT_EQ(c.contention_s, 0);
}

TEST(CheckpointSave, ATierOnItsOwnNetworkKeepsTheClosedFormOnFlow) {
  const auto flow = simulate_step(checkpoint_step({"network=flow", saves("async")})).report;
  ASSERT_TRUE(flow.checkpoint.has_value());
  EXPECT_FALSE(flow.checkpoint->fabric.has_value());
  const auto closed = time_checkpoint(checkpoint_step({"network=flow", saves("async")}), flow.step_time_s);
  EXPECT_EQ(flow.checkpoint->save_s, closed.save_s);
  EXPECT_EQ(flow.checkpoint->stall_s, closed.stall_s);
  EXPECT_EQ(flow.checkpoint->contention_s, 0);
}

TEST(CheckpointSave, AsyncInAnIdleGapCostsOnlyItsHostCopy) {
  // One node, tp 8: the step's traffic stays on NVLink, the write leaves by the NICs alone.
  const auto s = checkpoint_step({"network=flow", "cluster.storage.tiers.0.attach=compute_fabric", "gpus=8",
                                  "parallel.tp=8", "parallel.pp=1", "training.global_batch=8", saves("async", 10)});
  const auto report = simulate_step(s).report;
  const auto& c = *report.checkpoint;
  ASSERT_TRUE(c.fabric.has_value());
  EXPECT_EQ(c.fabric->saving_step_s, report.step_time_s);
  EXPECT_EQ(c.contention_s, 0);
  ASSERT_LT(c.save_s, 10 * report.step_time_s);  // the write ends before the next save
  EXPECT_DOUBLE_EQ(c.copy_s, c.size.bytes / 8 / s.cluster.server.pcie.achieved().bytes_per_second());
  EXPECT_EQ(c.stall_s, c.copy_s);
  EXPECT_DOUBLE_EQ(c.amortised_s, c.copy_s / 10);
}

TEST(CheckpointSave, AsyncUnderContentionSlowsTheStepByLessThanTheWriteLasts) {
  // 400 servers: each node writes at its NICs' rate, up the links its DP traffic takes.
  const auto s = checkpoint_step({"network=flow", "cluster.storage.tiers.0.attach=compute_fabric",
                                  "cluster.storage.tiers.0.servers=400", saves("async")});
  const auto report = simulate_step(s).report;
  const auto& c = *report.checkpoint;
  ASSERT_TRUE(c.fabric.has_value());
  const double slowdown = c.fabric->saving_step_s - report.step_time_s;
  EXPECT_GT(slowdown, 0);
  EXPECT_LE(slowdown, c.save_s);
  EXPECT_GT(c.contention_s, 0);
  EXPECT_GE(c.save_s, c.closed_form_save_s);  // sharing only slows the write
  EXPECT_DOUBLE_EQ(c.amortised_s, (c.stall_s + c.contention_s) / 50);
  // Deterministic: the same figures twice.
  const auto again = *simulate_step(s).report.checkpoint;
  EXPECT_EQ(again.save_s, c.save_s);
  EXPECT_EQ(again.fabric->saving_step_s, c.fabric->saving_step_s);
}

TEST(CheckpointSave, BadInputNamesTheField) {
  const auto message = [](const std::string& checkpoint) {
    try {
      (void)checkpoint_step({"checkpoint=" + checkpoint});
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(message(R"({"every_steps": 10, "mode": "blocking", "tier": "nope"})").find("/checkpoint/tier"), std::string::npos);
  EXPECT_NE(message(R"({"every_steps": 10, "mode": "blocking", "tier": "nvme"})").find("/checkpoint/tier"), std::string::npos);
  EXPECT_NE(message(R"({"every_steps": 0, "mode": "blocking", "tier": "pfs"})").find("/checkpoint/every_steps"), std::string::npos);
  EXPECT_NE(message(R"({"every_steps": -3, "mode": "blocking", "tier": "pfs"})").find("/checkpoint/every_steps"), std::string::npos);
  EXPECT_NE(message(R"({"every_steps": 10, "mode": "sometimes", "tier": "pfs"})").find("/checkpoint/mode"), std::string::npos);
  EXPECT_NE(message(R"({"every_steps": 10, "mode": "async", "tier": "pfs", "host_copy_per_gpu": 50})").find("/checkpoint/host_copy_per_gpu"), std::string::npos);
  EXPECT_NE(message(R"({"every_steps": 10, "mode": "async", "tier": "pfs", "often": 1})").find("often"), std::string::npos);
}

}  // namespace
}  // namespace ctwin::replay
