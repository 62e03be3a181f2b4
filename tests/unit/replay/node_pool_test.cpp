// Heterogeneous pools (docs/heterogeneous.md): oracles and the bad-input contract.
// - A "mixed" pool of one GPU kind is the homogeneous run, to the byte (CLI JSON).
// - With free communication and 1F1B on two stages whose second runs every kernel twice as long
//   (the same profile at training_time_scale 2) and is the bottleneck, stage 1 never waits once it
//   has its first input, so the step is f0 + m·(f1 + b1) + max(opt1, b0 + opt0): even layers and
//   speed-balanced layers both match it, and balancing gives the slow stage half the layers.
// - A pool whose GPUs cannot hold a stage, an unknown group, a group of zero nodes: one line, exit 2.

#include "ctwin/replay/node_pool.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/cli_runner.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/core/json_reader.hpp"
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

StageTimes stage_times(const StageWork& stage) {
  return {compute_time_of(stage.chunks[0].forward, false, false), compute_time_of(stage.chunks[0].backward, false, false),
          compute_time_of(stage.after_backward, true, true)};
}

TEST_F(NodePool, TwoStagesOneTwiceAsFastMatchTheClosedFormEvenAndBalanced) {
  const nlohmann::json document = pool_scenario({{{"name", "fast"}, {"gpu", "h100-sxm"}, {"nodes", 1}},
                                                 {{"name", "slow"}, {"gpu", half_speed_h100()}, {"nodes", 1}}});
  const std::vector<std::string> split{"gpus=16", "parallel.tp=8", "parallel.pp=2", "training.global_batch=8",
                                       "model.layers=24"};
  StepOptions options;
  options.free_communication = true;
  double even_s = 0;
  for (const char* balance : {"even", "speed"}) {
    SCOPED_TRACE(balance);
    std::vector<std::string> overrides = split;
    overrides.push_back(std::string("pool={\"balance\": \"") + balance + "\"}");
    const Scenario s = load(document, overrides);
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
  const nlohmann::json document = pool_scenario({{{"name", "fast"}, {"gpu", "h100-sxm"}, {"nodes", 1}},
                                                 {{"name", "slow"}, {"gpu", half_speed_h100()}, {"nodes", 1}}});
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

}  // namespace
}  // namespace ctwin::replay
