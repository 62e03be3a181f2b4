// `ctwin goodput` end to end: a quick run, byte-identical output for a seed, the validation
// table, and the bad inputs the issue names (a rate without its unit, a negative time, a spare
// pool larger than the build, an interval shorter than the checkpoint write).

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <string>

#include "cli_runner.hpp"
#include "source_root.hpp"

namespace {

using ctwin::cli_testing::Outcome;
using ctwin::cli_testing::one_line_error;
using ctwin::cli_testing::run_ctwin;
using ctwin::cli_testing::shell_quote;

std::string quick(const std::string& extra) {
  return "goodput " + shell_quote(ctwin::kRoot + "/scenarios/default.json") +
         " --days 3 --runs 40 --step-time 2s --checkpoint-interval 30min " + extra;
}

class GoodputCli : public ctwin::cli_testing::TempDirTest {};

TEST_F(GoodputCli, QuickRunIsDeterministicAndConsistent) {
  const Outcome a = run_ctwin(quick("--spares 2 --format json --seed 3"));
  ASSERT_EQ(a.status, 0) << a.output;
  const Outcome b = run_ctwin(quick("--spares 2 --format json --seed 3"));
  EXPECT_EQ(a.output, b.output);
  const auto j = nlohmann::json::parse(a.output);
  EXPECT_EQ(j["nodes"], 8);
  EXPECT_EQ(j["interval_s"], 1800);
  EXPECT_GT(j["ettr"]["mean"].get<double>(), 0.5);
  EXPECT_LE(j["ettr"]["mean"].get<double>(), 1.0);
  EXPECT_NEAR(j["mtbf_h"].get<double>() * j["interruptions"]["mean"].get<double>(), 72, 1e-6);
  double expected = 0;
  for (const auto& c : j["causes"]) expected += c["expected"].get<double>();
  EXPECT_NEAR(expected, j["expected_interruptions"].get<double>(), 1e-9);
  const Outcome table = run_ctwin(quick("--spares 5% --cold-spares 1 --on-empty shrink"));
  ASSERT_EQ(table.status, 0) << table.output;
  EXPECT_NE(table.output.find("P(spare pool runs dry)"), std::string::npos);
  const Outcome csv = run_ctwin(quick("--format csv --storage nvme-async"));
  ASSERT_EQ(csv.status, 0) << csv.output;
  EXPECT_EQ(csv.output.rfind("section,name,value\n", 0), 0u);
}

TEST_F(GoodputCli, AutoIntervalSearchesBesideYoungDaly) {
  const Outcome o = run_ctwin("goodput " + shell_quote(ctwin::kRoot + "/scenarios/default.json") +
                              " --days 5 --runs 30 --step-time 2s --format json");
  ASSERT_EQ(o.status, 0) << o.output;
  const auto j = nlohmann::json::parse(o.output);
  ASSERT_TRUE(j.contains("interval_search"));
  EXPECT_GT(j["interval_search"]["grid"].size(), 5u);
  EXPECT_GT(j["young_daly_interval_s"].get<double>(), 0);
  EXPECT_EQ(j["interval_s"], j["interval_search"]["best_interval_s"]);
}

TEST_F(GoodputCli, ValidateListsFitAndHeldOutCases) {
  const Outcome o = run_ctwin("goodput --validate --format json");
  ASSERT_EQ(o.status, 0) << o.output;
  const auto j = nlohmann::json::parse(o.output);
  int held_out = 0;
  for (const auto& c : j["cases"]) held_out += c["role"] == "held_out" ? 1 : 0;
  EXPECT_GE(held_out, 2);
}

TEST_F(GoodputCli, StragglerRateZeroChangesNothingAndARateCostsTime) {
  const Outcome plain = run_ctwin(quick("--spares 2 --format json --seed 3"));
  ASSERT_EQ(plain.status, 0) << plain.output;
  const Outcome zero = run_ctwin(quick("--spares 2 --format json --seed 3 --straggler-rate 0/h"));
  EXPECT_EQ(zero.output, plain.output);
  // 64 GPUs at 1e-3 per GPU-hour over 3 days: 4.6 events per run, each a GPU at half speed for 1 h.
  const Outcome slow = run_ctwin(
      quick("--spares 2 --format json --seed 3 --straggler-rate 1e-3/h --straggler-speed 0.5 --straggler-duration 1h"));
  ASSERT_EQ(slow.status, 0) << slow.output;
  const auto a = nlohmann::json::parse(plain.output);
  const auto b = nlohmann::json::parse(slow.output);
  EXPECT_EQ(b["interruptions"], a["interruptions"]);  // failure draws untouched
  EXPECT_LT(b["ettr"]["mean"].get<double>(), a["ettr"]["mean"].get<double>());
  const auto& st = b["stragglers"];
  EXPECT_NEAR(st["expected_events"].get<double>(), 1e-3 * 64 * 72, 1e-9);
  ASSERT_FALSE(st["stages"].empty());
  for (const auto& stage : st["stages"]) {
    // A GPU at half speed: its stage's compute doubles; the step slows by more than 1, less than 2.
    EXPECT_GT(stage["effect"].get<double>(), 1.05);
    EXPECT_LT(stage["effect"].get<double>(), 2.0);
  }
  EXPECT_GT(b["time_h_per_run"]["stragglers"].get<double>(), 0);
}

TEST_F(GoodputCli, ShrinkTakesTheSmallerJobsStepFromTheTwin) {
  // No spares and repairs of days: the pool runs dry and the job shrinks. The DP reduction runs
  // after the backward, so the smaller job's communication and batch show in its step.
  const Outcome o = run_ctwin(quick("--spares 0 --on-empty shrink --format json --set overlap.dp_grad_reduce=false "
                                    "--set overlap.dp_param_gather=false"));
  ASSERT_EQ(o.status, 0) << o.output;
  const auto j = nlohmann::json::parse(o.output);
  ASSERT_TRUE(j.contains("shrunk_jobs")) << o.output.substr(0, 400);
  bool differs = false;
  for (const auto& job : j["shrunk_jobs"]) {
    EXPECT_EQ(job["gpus"].get<long long>(), job["replicas"].get<long long>() * 4);
    differs |= std::abs(job["share"].get<double>() - job["replicas"].get<double>() / 16.0) > 1e-3;
  }
  EXPECT_TRUE(differs);
}

TEST_F(GoodputCli, BadInputGetsOneLineNamingIt) {
  std::ifstream in(ctwin::kRoot + "/models/reliability/gpu-cluster.json");
  nlohmann::json model = nlohmann::json::parse(in);
  model["components"][0]["rate"] = "1.51e-5";
  const std::string unitless = write("unitless.json", model.dump(2));
  EXPECT_TRUE(one_line_error(run_ctwin(quick("--reliability " + shell_quote(unitless))),
                             {"unitless.json", "/components/0/rate", "unit"}));
  EXPECT_TRUE(one_line_error(run_ctwin(quick("--hot-swap -30s")), {"--hot-swap", "negative"}));
  EXPECT_TRUE(one_line_error(run_ctwin(quick("--spares 9")), {"--spares", "more than the 8 nodes"}));
  EXPECT_TRUE(one_line_error(run_ctwin(quick("--spares 2 --cold-spares 7")), {"--spares", "8 nodes"}));
  EXPECT_TRUE(one_line_error(run_ctwin("goodput " + shell_quote(ctwin::kRoot + "/scenarios/default.json") +
                                       " --days 3 --runs 5 --step-time 2s --checkpoint-interval 1s"),
                             {"--checkpoint-interval", "shorter than the checkpoint write"}));
  EXPECT_TRUE(one_line_error(run_ctwin(quick("--days -2")), {"--days"}));
  EXPECT_TRUE(one_line_error(run_ctwin("goodput " + shell_quote(ctwin::kRoot + "/scenarios/default.json") +
                                       " --days 3 --runs 5 --step-time 2s --checkpoint-interval 30"),
                             {"--checkpoint-interval", "unit"}));
  EXPECT_TRUE(one_line_error(run_ctwin(quick("--storage tape")), {"--storage", "tape"}));
  EXPECT_TRUE(one_line_error(run_ctwin(quick("--on-empty panic")), {"--on-empty"}));
  EXPECT_TRUE(one_line_error(run_ctwin(quick("--runs 0")), {"--runs"}));
  EXPECT_TRUE(one_line_error(run_ctwin(quick("--cold-swap 20year")), {"--cold-swap", "unknown duration unit"}));
  EXPECT_TRUE(one_line_error(run_ctwin(quick("--hot-swap 30d")), {"--hot-swap", "more than 168 h"}));
  EXPECT_TRUE(one_line_error(run_ctwin(quick("--straggler-rate 1e-3")), {"--straggler-rate", "unit"}));
  EXPECT_TRUE(one_line_error(run_ctwin(quick("--straggler-rate 1e-3/h --straggler-speed 1.5")), {"--straggler-speed"}));
  EXPECT_TRUE(one_line_error(run_ctwin(quick("--straggler-rate 1e-3/h --straggler-duration -1h")), {"--straggler-duration"}));
}

// One checkpoint model with the loader's storage (issue 40): by default goodput writes through
// the cluster's own shared tier when it gives a write rate, at the closed form's time; where it
// gives none (the bundled RapidFS tier), the file's pfs, byte for byte as before.
TEST_F(GoodputCli, DefaultTierIsTheClustersStorageWhereItTakesWrites) {
  const std::string io = "goodput " + shell_quote(ctwin::kRoot + "/scenarios/io/llama3-70b-rapidfs.json") +
                         " --days 1 --runs 10 --step-time 5s --checkpoint-interval 1h --format json ";
  const Outcome bundled = run_ctwin(io);
  ASSERT_EQ(bundled.status, 0) << bundled.output;
  EXPECT_EQ(nlohmann::json::parse(bundled.output)["checkpoint"]["tier"], "pfs");
  EXPECT_EQ(bundled.output, run_ctwin(io + "--storage pfs").output);
  const Outcome writes = run_ctwin(io + "--set cluster.storage.tiers.0.write_per_server=10GiBps");
  ASSERT_EQ(writes.status, 0) << writes.output;
  const auto c = nlohmann::json::parse(writes.output)["checkpoint"];
  EXPECT_EQ(c["tier"], "cluster:pfs");
  // 20 servers x 10 GiB/s of writes, 15 GiB/s of reads; each node's 400 Gb/s of storage ports.
  const double gib = 1024.0 * 1024 * 1024;
  const double bytes = c["bytes"].get<double>();
  const double writers = c["writer_nodes"].get<double>();
  EXPECT_NEAR(c["blocking_s"].get<double>(), std::max(bytes / (200 * gib), bytes / writers / 50e9), 1e-9);
  EXPECT_NEAR(c["load_s"].get<double>(), std::max(bytes / (300 * gib), bytes / 128 / 50e9), 1e-9);
}

}  // namespace
