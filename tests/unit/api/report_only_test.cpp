#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

#include "ctwin/api/evaluate.hpp"
#include "ctwin/core/error.hpp"

namespace ctwin::api {
namespace {

Scenario base(const std::string& model) {
  return Scenario::load(std::string(CTWIN_SOURCE_DIR) + "/scenarios/default.json")
      .with("model", "models/llm/" + model + ".json")
      .with("network", "analytical");
}

using Key = std::tuple<std::int64_t, std::int64_t, std::string, int, bool, bool, int, int>;

std::vector<Key> intervals(const replay::RankTimeline& timeline) {
  std::vector<Key> keys;
  for (const auto& b : timeline.busy) {
    keys.emplace_back(b.start.ps(), b.end.ps(), b.name, static_cast<int>(b.stream), b.optimizer, b.forward, b.chunk,
                      b.micro_batch);
  }
  std::sort(keys.begin(), keys.end());
  return keys;
}

// Oracle for the planner's fast path: replaying repeated chunk passes by shifting the first gives
// the event replay's step time, breakdown, event count and every busy interval, to the
// picosecond, over splits that exercise interleaving, recompute, ZeRO 0/1/3, CP, TP overlap,
// blocking sends, unoverlapped DP and MoE.
TEST(ReportOnly, RepeatedPassesGiveTheEventReplaysReport) {
  struct Case {
    std::string model;
    nlohmann::json parallel;
    std::vector<std::pair<std::string, nlohmann::json>> sets;
  };
  const auto split = [](int tp, int pp, int vpp, int cp, int zero, const char* recompute) {
    return nlohmann::json{{"tp", tp}, {"pp", pp}, {"vpp", vpp}, {"cp", cp}, {"ep", 1}, {"dp", "auto"},
                          {"sequence_parallel", tp > 1}, {"distributed_optimizer", zero == 1}, {"zero", zero},
                          {"recompute", recompute}, {"schedule", vpp > 1 ? "interleaved" : "1f1b"}};
  };
  nlohmann::json moe = split(2, 2, 1, 1, 1, "selective");
  moe["ep"] = 4;
  const std::vector<Case> cases = {
      {"llama3-8b", split(2, 2, 1, 1, 1, "selective"), {}},
      {"llama3-8b", split(1, 4, 1, 1, 1, "none"), {{"training.micro_batch", 2}}},
      {"llama3-8b", split(2, 4, 2, 1, 1, "full"), {}},
      {"llama3-8b", split(4, 2, 4, 1, 0, "selective"), {{"overlap.pp_p2p", false}}},
      {"llama3-8b", split(8, 1, 1, 1, 3, "none"), {}},
      {"llama3-8b", split(2, 2, 1, 2, 1, "selective"), {{"overlap.tp_comm", true}}},
      {"llama3-8b", split(2, 8, 1, 1, 1, "selective"), {{"overlap.dp_grad_reduce", false}}},
      {"llama3-8b", split(4, 4, 2, 1, 1, "selective"), {{"overlap.dp_param_gather", false}}},
      {"mixtral-8x7b", moe, {{"training.seq_len", 4096}}},
  };
  std::uint64_t repeated = 0;
  for (const auto& c : cases) {
    Scenario s = base(c.model).with("parallel", c.parallel);
    for (const auto& [path, value] : c.sets) s = s.with(path, value);
    SCOPED_TRACE(c.model + " " + c.parallel.dump());
    EvalContext context;
    StepQuery fast;
    fast.report_only = true;
    const auto slow_step = evaluate(s, context).step;
    const auto fast_step = evaluate(s, context, fast).step;
    const auto& a = slow_step.report;
    const auto& b = fast_step.report;
    EXPECT_EQ(a.step_time_s, b.step_time_s);
    EXPECT_EQ(a.events, b.events);
    EXPECT_EQ(a.breakdown.compute_s, b.breakdown.compute_s);
    EXPECT_EQ(a.breakdown.bubble_s, b.breakdown.bubble_s);
    EXPECT_EQ(a.breakdown.optimizer_s, b.breakdown.optimizer_s);
    EXPECT_EQ(a.breakdown.exposed_comm_s.tp, b.breakdown.exposed_comm_s.tp);
    EXPECT_EQ(a.breakdown.exposed_comm_s.pp, b.breakdown.exposed_comm_s.pp);
    EXPECT_EQ(a.breakdown.exposed_comm_s.dp, b.breakdown.exposed_comm_s.dp);
    EXPECT_EQ(a.breakdown.exposed_comm_s.cp, b.breakdown.exposed_comm_s.cp);
    EXPECT_EQ(a.breakdown.exposed_comm_s.ep, b.breakdown.exposed_comm_s.ep);
    ASSERT_EQ(slow_step.replay.ranks.size(), fast_step.replay.ranks.size());
    for (std::size_t r = 0; r < slow_step.replay.ranks.size(); ++r) {
      EXPECT_EQ(slow_step.replay.ranks[r].end, fast_step.replay.ranks[r].end);
      EXPECT_EQ(intervals(slow_step.replay.ranks[r]), intervals(fast_step.replay.ranks[r]));
    }
    EXPECT_EQ(slow_step.replay.repeated_lists, 0u);
    repeated += fast_step.replay.repeated_lists;
  }
  EXPECT_GT(repeated, 100u);  // the fast path was taken, not only the event replay
}

// The flow fabric's times depend on what else is in flight: there every pass is replayed.
TEST(ReportOnly, SharedFabricReplaysEveryPass) {
  EvalContext context;
  StepQuery fast;
  fast.report_only = true;
  const auto step = evaluate(base("llama3-8b").with("network", "flow"), context, fast).step;
  EXPECT_EQ(step.replay.repeated_lists, 0u);
}

}  // namespace
}  // namespace ctwin::api
