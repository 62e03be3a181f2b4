// Heterogeneous pools (docs/heterogeneous.md): oracles and the bad-input contract.
// - A "mixed" pool of one GPU kind is the homogeneous run, to the byte (CLI JSON).
// - With free communication and 1F1B on two stages whose second runs every kernel twice as long
//   (the same profile at training_time_scale 2) and is the bottleneck, stage 1 never waits once it
//   has its first input, so the step is f0 + m·(f1 + b1) + max(opt1, b0 + opt0): even layers and
//   speed-balanced layers both match it, and balancing gives the slow stage half the layers.
// - A pool whose GPUs cannot hold a stage, an unknown group, a group of zero nodes: one line, exit 2.
// - DP shares (dp_shares.hpp): two DP replicas (pp 1), one on a group twice as fast, get 8 and 4 of
//   12 micro-batches under "speed" (the global batch conserved); with free communication each
//   replica's step is m·(f + b) + opt with its own kernel sums and the step is the slower one's,
//   even (6 + 6) and by speed; by speed it is a third shorter. A pool of one kind in two groups
//   has no shares (the byte-identity above covers its report). Interleaved shares are multiples of pp.
// - Per-group servers: a group naming the file's own server is the homogeneous run to the byte; a
//   group whose NICs have half the bandwidth changes exactly its own stage's collectives that
//   cross nodes (DP), each to what a whole build of that server gives, and leaves its TP
//   collectives (NVLink) and the other stage alone; a stage spanning both groups takes the slower
//   time of each collective. Bad servers: one line naming the field.

#include "ctwin/replay/node_pool.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/cli_runner.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/core/json_reader.hpp"
#include "ctwin/replay/dp_shares.hpp"
#include "ctwin/replay/training_step.hpp"

namespace ctwin::replay {
namespace {

using cli_testing::one_line_error;
using cli_testing::run_ctwin;

const std::string kSource = CTWIN_SOURCE_DIR;

/// The default scenario with its cluster inline, holding `groups`.
nlohmann::json pool_scenario(const nlohmann::json& groups) {
  nlohmann::json s = load_json_file(kSource + "/scenarios/default.json");
  s["cluster"] = load_json_file(kSource + "/topologies/dgx-h100-superpod.json");
  s["cluster"]["node_groups"] = groups;
  return s;
}

class NodePool : public cli_testing::TempDirTest {
 protected:
  /// A copy of h100-sxm whose kernels all take twice as long.
  std::string half_speed_h100() const {
    nlohmann::json gpu = load_json_file(kSource + "/models/gpus/h100-sxm.json");
    gpu["name"] = "H100 at half speed";
    gpu["training_time_scale"] = 2.0;
    gpu["sources"]["training_time_scale"] = "test: every kernel twice as long";
    return write("h100-half.json", gpu.dump());
  }
  /// One H100 node ("fast") then one of the half-speed copy ("slow").
  nlohmann::json fast_and_slow() const {
    return pool_scenario({{{"name", "fast"}, {"gpu", "h100-sxm"}, {"nodes", 1}},
                          {{"name", "slow"}, {"gpu", half_speed_h100()}, {"nodes", 1}}});
  }
  Scenario load(const nlohmann::json& document, const std::vector<std::string>& overrides) const {
    return parse_scenario(document, "pool.json", dir_, kSource, overrides);
  }
};

/// The JSON report of `file` without the fields that name the file and the pool's stages: the step's figures.
std::string json_of_run(const std::string& file, bool pooled) {
  const auto outcome = run_ctwin("run " + cli_testing::shell_quote(file) + " --format json --network analytical");
  EXPECT_EQ(outcome.status, 0) << outcome.output;
  nlohmann::json report = nlohmann::json::parse(outcome.output);
  EXPECT_EQ(report.contains("pool"), pooled);
  report.erase("scenario");
  report.erase("pool");
  return report.dump(2);
}

TEST_F(NodePool, OneKindInTwoGroupsIsTheHomogeneousRunToTheByte) {
  const nlohmann::json plain = pool_scenario(nullptr);
  nlohmann::json pooled = pool_scenario({{{"name", "a"}, {"gpu", "h100-sxm"}, {"nodes", 3}},
                                         {{"name", "b"}, {"gpu", "h100-sxm"}, {"nodes", 5}}});
  const std::string expected = json_of_run(write("plain.json", plain.dump()), false);
  EXPECT_NE(expected.find("step_time_s"), std::string::npos);
  EXPECT_EQ(json_of_run(write("even.json", pooled.dump()), true), expected);
  pooled["pool"] = {{"balance", "speed"}, {"order", {"b", "a"}}};
  EXPECT_EQ(json_of_run(write("speed.json", pooled.dump()), true), expected);
}

struct StageTimes {
  SimTime f, b, opt;
};

/// `overrides` and a pool balanced by `balance`.
std::vector<std::string> with_balance(std::vector<std::string> overrides, const std::string& balance) {
  overrides.push_back("pool={\"balance\": \"" + balance + "\"}");
  return overrides;
}

StageTimes stage_times(const StageWork& stage) {
  return {compute_time_of(stage.chunks[0].forward, false, false), compute_time_of(stage.chunks[0].backward, false, false),
          compute_time_of(stage.after_backward, true, true)};
}

TEST_F(NodePool, TwoStagesOneTwiceAsFastMatchTheClosedFormEvenAndBalanced) {
  const nlohmann::json document = fast_and_slow();
  const std::vector<std::string> split{"gpus=16", "parallel.tp=8", "parallel.pp=2", "training.global_batch=8",
                                       "model.layers=24"};
  StepOptions options;
  options.free_communication = true;
  double even_s = 0;
  for (const char* balance : {"even", "speed"}) {
    SCOPED_TRACE(balance);
    const Scenario s = load(document, with_balance(split, balance));
    const bool speed = std::string(balance) == "speed";
    const std::vector<std::int64_t> layout = speed ? std::vector<std::int64_t>{16, 8} : std::vector<std::int64_t>{};
    EXPECT_EQ(s.split.pipeline_layout, layout);
    const SimulatedStep step = simulate_step(s, options);
    const std::int64_t m = step.work.micro_batches;
    ASSERT_EQ(m, 8);
    const StageTimes s0 = stage_times(step.work.stages[0]);
    const StageTimes s1 = stage_times(step.work.stages[1]);
    ASSERT_LE(s0.f + s0.b, s1.f + s1.b) << "the slow stage is the bottleneck";
    const SimTime closed = s0.f + (s1.f + s1.b) * m + std::max(s1.opt, s0.b + s0.opt);
    EXPECT_NEAR(step.report.step_time_s, closed.seconds(), 1e-9);
    if (speed) {
      // 16 layers at full speed against 8 at half: the stages differ by their ends (embedding; logits and loss).
      EXPECT_LT(step.report.step_time_s, even_s * 0.8);
    } else {
      even_s = step.report.step_time_s;
    }
  }
}

TEST_F(NodePool, TheFasterGroupGetsTheLayersWhereverItSits) {
  const nlohmann::json document = fast_and_slow();
  const Scenario s = load(document, {"gpus=16", "parallel.tp=8", "parallel.pp=2", "model.layers=24",
                                     "pool={\"balance\": \"speed\", \"order\": [\"slow\", \"fast\"]}"});
  EXPECT_EQ(s.split.pipeline_layout, (std::vector<std::int64_t>{8, 16}));
  EXPECT_EQ(stage_groups(s), (std::vector<std::vector<std::size_t>>{{0}, {1}}));
}

TEST_F(NodePool, BadPoolsAreOneLineErrors) {
  // Llama 3 8B, tp 2, pp 1: about 46 GiB per GPU, which fits 80 GB, not 40 GB.
  nlohmann::json small = pool_scenario({{{"name", "h100"}, {"gpu", "h100-sxm"}, {"nodes", 1}},
                                        {{"name", "a100"}, {"gpu", "a100-sxm-40gb"}, {"nodes", 1}}});
  small["gpus"] = 16;
  small["parallel"]["tp"] = 2;
  small["parallel"]["pp"] = 1;
  EXPECT_TRUE(one_line_error(run_ctwin("run " + write("small.json", small.dump())),
                             {"small.json", "/cluster/node_groups", "a100", "holds"}));
  nlohmann::json unknown = pool_scenario({{{"name", "h100"}, {"gpu", "h100-sxm"}, {"nodes", 8}}});
  unknown["pool"] = {{"order", {"h200"}}};
  EXPECT_TRUE(one_line_error(run_ctwin("run " + write("unknown.json", unknown.dump())),
                             {"unknown.json", "/pool/order/0", "h200"}));
  const nlohmann::json empty = pool_scenario({{{"name", "h100"}, {"gpu", "h100-sxm"}, {"nodes", 8}},
                                              {{"name", "h200"}, {"gpu", "h200"}, {"nodes", 0}}});
  EXPECT_TRUE(one_line_error(run_ctwin("run " + write("empty.json", empty.dump())),
                             {"empty.json", "/node_groups/1/nodes"}));
  const nlohmann::json few = pool_scenario({{{"name", "h100"}, {"gpu", "h100-sxm"}, {"nodes", 7}}});
  EXPECT_TRUE(one_line_error(run_ctwin("run " + write("few.json", few.dump())),
                             {"few.json", "/cluster/node_groups", "need 8"}));
  nlohmann::json no_groups = pool_scenario(nullptr);
  no_groups["cluster"].erase("node_groups");
  no_groups["pool"] = {{"balance", "speed"}};
  EXPECT_TRUE(one_line_error(run_ctwin("run " + write("none.json", no_groups.dump())), {"none.json", "/pool"}));
}


/// m·(f + b) + opt on a one-stage replica: with pp 1 the replay runs its micro-batches back to back.
SimTime one_stage_closed_form(const StepWork& work) {
  const StageTimes t = stage_times(work.stages[0]);
  return (t.f + t.b) * work.micro_batches + t.opt;
}

TEST_F(NodePool, ReplicasOnAGroupTwiceAsFastGetTwiceTheMicroBatches) {
  const nlohmann::json document = fast_and_slow();
  const std::vector<std::string> split{"gpus=16", "parallel.tp=8", "parallel.pp=1", "training.global_batch=12",
                                       "model.layers=8"};
  StepOptions options;
  options.free_communication = true;
  const Scenario even = load(document, with_balance(split, "even"));
  EXPECT_TRUE(dp_speed_shares(even).per_replica.empty());
  const SimulatedStep even_step = simulate_step(even, options);
  EXPECT_TRUE(even_step.report.dp_shares.empty());
  ASSERT_EQ(even_step.work.micro_batches, 6);
  // The even step is the slow replica's: the stage runs on its slowest kind.
  EXPECT_NEAR(even_step.report.step_time_s, one_stage_closed_form(even_step.work).seconds(), 1e-9);

  const Scenario speed = load(document, with_balance(split, "speed"));
  const DpShares shares = dp_speed_shares(speed);
  ASSERT_EQ(shares.per_replica, (std::vector<std::int64_t>{8, 4}));
  ASSERT_EQ(shares.classes.size(), 2U);
  const SimulatedStep step = simulate_step(speed, options);
  EXPECT_EQ(step.report.dp_shares, shares.per_replica);
  // The global batch is conserved: tokens per step as the even split's.
  EXPECT_NEAR(step.report.tokens_per_s * step.report.step_time_s, 12.0 * speed.split.seq_len, 1e-6);
  SimTime closed{};
  for (const Scenario& alike : shares.classes) {
    const SimulatedStep replica = simulate_step(alike, options);
    EXPECT_EQ(replica.work.micro_batches * 2, alike.split.global_batch);
    closed = std::max(closed, one_stage_closed_form(replica.work));
  }
  EXPECT_NEAR(step.report.step_time_s, closed.seconds(), 1e-9);
  // 8 micro-batches at full speed against 6 at half: about 8 / 12 of the even step.
  EXPECT_LT(step.report.step_time_s, even_step.report.step_time_s * 0.7);
  EXPECT_GT(step.report.step_time_s, even_step.report.step_time_s * 0.6);
}

TEST_F(NodePool, OneKindInTwoGroupsHasNoDpShares) {
  const nlohmann::json document = pool_scenario({{{"name", "a"}, {"gpu", "h100-sxm"}, {"nodes", 1}},
                                                 {{"name", "b"}, {"gpu", "h100-sxm"}, {"nodes", 1}}});
  const Scenario s = load(document, {"gpus=16", "parallel.tp=8", "parallel.pp=1", "training.global_batch=12",
                                     "model.layers=8", "pool={\"balance\": \"speed\"}"});
  EXPECT_EQ(dp_replica_groups(s), (std::vector<std::vector<std::vector<std::size_t>>>{{{0}}, {{1}}}));
  EXPECT_TRUE(dp_speed_shares(s).per_replica.empty());
}

TEST_F(NodePool, InterleavedDpSharesAreMultiplesOfPp) {
  // Groups alternate node by node: replica 0 of each stage on a fast node, replica 1 on a slow one.
  const std::string slow = half_speed_h100();
  const nlohmann::json document = pool_scenario({{{"name", "fast0"}, {"gpu", "h100-sxm"}, {"nodes", 1}},
                                                 {{"name", "slow0"}, {"gpu", slow}, {"nodes", 1}},
                                                 {{"name", "fast1"}, {"gpu", "h100-sxm"}, {"nodes", 1}},
                                                 {{"name", "slow1"}, {"gpu", slow}, {"nodes", 1}}});
  const Scenario s = load(document, {"gpus=32", "parallel.tp=8", "parallel.pp=2", "parallel.vpp=2",
                                     "parallel.schedule=interleaved", "training.global_batch=12", "model.layers=8",
                                     "pool={\"balance\": \"speed\"}"});
  // 12 micro-batches in units of pp 2: 6 units shared 4 : 2.
  const DpShares shares = dp_speed_shares(s);
  EXPECT_EQ(shares.per_replica, (std::vector<std::int64_t>{8, 4}));
  StepOptions options;
  options.free_communication = true;
  EXPECT_EQ(simulate_step(s, options).report.dp_shares, shares.per_replica);
}

TEST_F(NodePool, TheJsonReportListsTheDpShares) {
  nlohmann::json document = fast_and_slow();
  document["gpus"] = 16;
  document["parallel"]["tp"] = 8;
  document["parallel"]["pp"] = 1;
  document["training"]["global_batch"] = 12;
  document["pool"] = {{"balance", "speed"}};
  const auto outcome = run_ctwin("run " + write("shares.json", document.dump()) + " --format json --network analytical");
  ASSERT_EQ(outcome.status, 0) << outcome.output;
  const nlohmann::json report = nlohmann::json::parse(outcome.output);
  EXPECT_EQ(report["pool"]["dp_micro_batches"], (nlohmann::json{8, 4}));
}


/// Sum of the durations of `stage`'s ops on `stream` (every chunk pass and the step's end).
SimTime stream_time(const StageWork& stage, Stream stream) {
  SimTime total{};
  auto add = [&](const std::vector<OpNode>& ops) {
    for (const OpNode& op : ops) {
      if (op.stream == stream) total += op.duration;
    }
  };
  for (const ChunkWork& chunk : stage.chunks) {
    add(chunk.forward);
    add(chunk.backward);
  }
  add(stage.after_backward);
  return total;
}

/// Two groups of 4 H100 nodes (default scenario: tp 2, pp 2, one stage in each), the first with `server`.
nlohmann::json server_pool(const nlohmann::json& server) {
  nlohmann::json first{{"name", "a"}, {"gpu", "h100-sxm"}, {"nodes", 4}};
  if (!server.is_null()) first["server"] = server;
  nlohmann::json s = pool_scenario({first, {{"name", "b"}, {"gpu", "h100-sxm"}, {"nodes", 4}}});
  s["network"] = "analytical";
  return s;
}

TEST_F(NodePool, AGroupOnTheFilesOwnServerIsTheHomogeneousRunToTheByte) {
  nlohmann::json plain = pool_scenario(nullptr);
  plain["network"] = "analytical";
  const nlohmann::json own = server_pool(plain["cluster"]["server"]);
  EXPECT_EQ(json_of_run(write("own.json", own.dump()), true), json_of_run(write("plain.json", plain.dump()), false));
}

TEST_F(NodePool, HalfTheNicBandwidthSlowsExactlyTheGroupsCrossNodeCollectives) {
  nlohmann::json plain = pool_scenario(nullptr);
  plain["network"] = "analytical";
  nlohmann::json half_server = plain["cluster"]["server"];
  half_server["nics"]["bandwidth"] = "200Gbps";
  nlohmann::json half_build = plain;  // every node on the half-NIC server
  half_build["cluster"]["server"] = half_server;
  const StepOptions options;
  const SimulatedStep base = simulate_step(load(plain, {}), options);
  const SimulatedStep all_half = simulate_step(load(half_build, {}), options);
  const SimulatedStep pooled = simulate_step(load(server_pool(half_server), {}), options);
  const StageWork& a = pooled.work.stages[0];
  const StageWork& b = pooled.work.stages[1];
  // Stage 0 sits on group a: its DP collectives cross its nodes' NICs, as on a half-NIC build.
  EXPECT_EQ(stream_time(a, Stream::kDp), stream_time(all_half.work.stages[0], Stream::kDp));
  EXPECT_GT(stream_time(a, Stream::kDp), stream_time(base.work.stages[0], Stream::kDp));
  EXPECT_EQ(stream_time(a, Stream::kTp), stream_time(base.work.stages[0], Stream::kTp));  // NVLink: unchanged
  EXPECT_EQ(stream_time(a, Stream::kCompute), stream_time(base.work.stages[0], Stream::kCompute));
  for (const Stream stream : {Stream::kCompute, Stream::kTp, Stream::kDp}) {
    EXPECT_EQ(stream_time(b, stream), stream_time(base.work.stages[1], stream));  // group b: the file's server
  }
  EXPECT_GT(pooled.report.step_time_s, base.report.step_time_s);
  EXPECT_LE(pooled.report.step_time_s, all_half.report.step_time_s);
  // With pp 1 the one stage spans both groups: each collective waits for the slower, the half-NIC one.
  const SimulatedStep spanning = simulate_step(load(server_pool(half_server), {"parallel.pp=1"}), options);
  const SimulatedStep half_pp1 = simulate_step(load(half_build, {"parallel.pp=1"}), options);
  EXPECT_EQ(stream_time(spanning.work.stages[0], Stream::kDp), stream_time(half_pp1.work.stages[0], Stream::kDp));
  EXPECT_EQ(stream_time(spanning.work.stages[0], Stream::kTp), stream_time(half_pp1.work.stages[0], Stream::kTp));
}

TEST_F(NodePool, BadGroupServersAreOneLineErrors) {
  nlohmann::json plain = pool_scenario(nullptr);
  const nlohmann::json server = plain["cluster"]["server"];
  nlohmann::json named = server_pool("hgx-a100");
  EXPECT_TRUE(one_line_error(run_ctwin("run " + write("named.json", named.dump())),
                             {"named.json", "/node_groups/0/server"}));
  nlohmann::json unitless = server;
  unitless["nics"]["bandwidth"] = 200;
  EXPECT_TRUE(one_line_error(run_ctwin("run " + write("unitless.json", server_pool(unitless).dump())),
                             {"unitless.json", "/node_groups/0/server/nics/bandwidth"}));
  nlohmann::json wide = server;
  wide["gpus"] = 4;
  wide["nics"]["count"] = 4;
  EXPECT_TRUE(one_line_error(run_ctwin("run " + write("wide.json", server_pool(wide).dump())),
                             {"wide.json", "/node_groups/0/server/gpus"}));
  // On a multi-site build the group's ops would be priced again on the sites they span, on the file's server.
  nlohmann::json sites = server_pool(server);
  sites["cluster"]["fabric"]["sites"] = {{"count", 2}, {"dci", {{"links", 4}, {"bandwidth", "400Gbps"}, {"latency", "10us"}}}};
  EXPECT_TRUE(one_line_error(run_ctwin("run " + write("sites.json", sites.dump())), {"sites.json", "/cluster/node_groups"}));
}

}  // namespace
}  // namespace ctwin::replay
