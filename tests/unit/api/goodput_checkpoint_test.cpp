// goodput's checkpoint from the scenario's "checkpoint" field (studies/goodput_checkpoint.hpp):
// one checkpoint model for `run` and `goodput`. Oracles: goodput's stall per save is `run`'s to
// the nanosecond (blocking and async, analytical and flow) and its interval is every_steps steps;
// blocking and async differ by the closed form (save against copy + max(0, save − interval));
// a given interval re-prices an async save's wait; options override and the JSON says which;
// a scenario without the field keeps goodput's own tier; a bad field is one line naming it.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include <nlohmann/json.hpp>

#include "ctwin/api/evaluate.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/studies/goodput.hpp"

namespace ctwin::api {
namespace {

// Llama 3 8B on 64 GPUs of the RapidFS build (tp 2, pp 2, dp 16), its tier cut to 2 servers and
// given a write rate (10 GiB/s a server: an assumption of the test, no vendor figure): the tier
// binds and a save (about 5 s) outlasts a step; a GPU copies to host at 50 GB/s.
Scenario rapidfs_job(const std::string& network = "analytical") {
  return Scenario::load(std::string(CTWIN_SOURCE_DIR) + "/scenarios/io/llama3-70b-rapidfs.json")
      .with_assignments({"model=models/llm/llama3-8b.json", "gpus=64", "training.global_batch=128", "parallel.tp=2",
                         "parallel.pp=2", "parallel.vpp=1", "parallel.schedule=1f1b", "data=null",
                         "cluster.storage.tiers.0.servers=2", "cluster.storage.tiers.0.write_per_server=10GiBps",
                         "network=" + network});
}

Scenario saving_job(const std::string& mode, int every, const std::string& network = "analytical") {
  return rapidfs_job(network).with_assignments(
      {"checkpoint={\"every_steps\": " + std::to_string(every) + ", \"mode\": \"" + mode + "\", \"tier\": \"pfs\", \"host_copy_per_gpu\": \"50GBps\"}"});
}

GoodputQuery saving_query(const Scenario& scenario) {
  GoodputQuery q;
  q.scenario = scenario;
  q.days = 2;
  q.runs = 20;
  return q;
}

void expect_run_and_goodput_agree(const Scenario& scenario, EvalContext& context) {
  const auto run = *evaluate(scenario, context).step.report.checkpoint;
  const GoodputEvaluation g = evaluate_goodput(saving_query(scenario), context);
  const auto& c = g.study.checkpoint;
  EXPECT_EQ(c.blocking_s, run.stall_s + run.contention_s);
  EXPECT_NEAR(c.blocking_s, run.stall_s + run.contention_s, 1e-9);  // to the ns, whatever the rounding
  EXPECT_EQ(c.load_s, run.load_s);
  EXPECT_EQ(c.size.bytes, run.size.bytes);
  EXPECT_EQ(c.tier, "cluster:pfs");
  EXPECT_EQ(g.study.config.interval_s, static_cast<double>(scenario.resolve().checkpoint->every_steps) * g.study.step_time_s);
  EXPECT_FALSE(g.study.search.has_value()) << "the scenario gives the interval";
  const nlohmann::json j = goodput_json(g)["checkpoint"];
  EXPECT_EQ(j["stall_s"], run.stall_s);
  EXPECT_EQ(j["from"]["tier"], "scenario");
  EXPECT_EQ(j["from"]["interval"], "scenario");
}

TEST(GoodputCheckpoint, StallIsRunsForBlockingAndAsync) {
  EvalContext context;
  for (const std::string mode : {"blocking", "async"}) expect_run_and_goodput_agree(saving_job(mode, 50), context);
}

TEST(GoodputCheckpoint, StallIsRunsOnTheFlowFabric) {
  EvalContext context;
  const Scenario s = saving_job("async", 50, "flow").with("cluster.storage.tiers.0.attach", "compute_fabric");
  ASSERT_TRUE(evaluate(s, context).step.report.checkpoint->fabric.has_value());
  expect_run_and_goodput_agree(s, context);
}

TEST(GoodputCheckpoint, BlockingAndAsyncDifferByTheClosedForm) {
  // Async every 2 steps (3.4 s): the write (5.2 s) outlasts the interval, so the next save waits for it;
  // every 50 steps it does not. Blocking stalls for the whole save.
  EvalContext context;
  const auto blocking = evaluate_goodput(saving_query(saving_job("blocking", 50)), context).study;
  const double save = blocking.checkpoint.blocking_s;
  EXPECT_FALSE(blocking.checkpoint.asynchronous);
  for (const int every : {2, 50}) {
    const auto async = evaluate_goodput(saving_query(saving_job("async", every)), context).study;
    const double interval = every * blocking.step_time_s;
    const double copy = async.checkpoint.size.bytes_per_writer / 8 / 50e9;  // 8 GPUs a node, 50 GB/s each
    EXPECT_NEAR(async.checkpoint.blocking_s, copy + std::max(0.0, save - interval), 1e-9) << every;
    EXPECT_EQ(async.checkpoint.persist_s, save);
    EXPECT_TRUE(async.checkpoint.asynchronous);
  }
}

TEST(GoodputCheckpoint, OptionsOverrideTheScenarioAndSaySo) {
  EvalContext context;
  const Scenario s = saving_job("async", 50);
  const double step_s = evaluate(s, context).step.report.step_time_s;
  const auto run = *evaluate(s, context).step.report.checkpoint;
  GoodputQuery q = saving_query(s);
  q.interval = "3s";  // rounded up to whole steps, shorter than the write: the async save waits for it
  q.fp32_master = false;
  const GoodputEvaluation g = evaluate_goodput(q, context);
  const double interval = std::max(1.0, std::ceil(3 / step_s - 1e-9)) * step_s;
  EXPECT_EQ(g.study.config.interval_s, interval);
  EXPECT_EQ(g.study.checkpoint.size.bytes_per_parameter, 10);
  const double save_10 = run.save_s * 10 / 14;
  ASSERT_GT(save_10, interval);
  EXPECT_NEAR(g.study.checkpoint.blocking_s, run.copy_s * 10 / 14 + save_10 - interval, 1e-9);
  const nlohmann::json from = goodput_json(g)["checkpoint"]["from"];
  EXPECT_EQ(from["interval"], "--checkpoint-interval");
  EXPECT_EQ(from["bytes_per_parameter"], "--no-fp32-master");
  EXPECT_EQ(from["tier"], "scenario");

  GoodputQuery other = saving_query(s);
  other.storage = "pfs";  // the tiers file's parallel file system, with its own mode
  const GoodputEvaluation o = evaluate_goodput(other, context);
  EXPECT_EQ(o.study.checkpoint.tier, "pfs");
  EXPECT_EQ(o.study.checkpoint.size.bytes, run.size.bytes);
  EXPECT_EQ(goodput_json(o)["checkpoint"]["from"]["mode"], "--storage");
}

TEST(GoodputCheckpoint, WithoutTheFieldGoodputKeepsItsOwnTier) {
  EvalContext context;
  const Scenario s = rapidfs_job();
  const GoodputEvaluation g = evaluate_goodput(saving_query(s), context);
  EXPECT_FALSE(g.checkpoint.has_value());
  EXPECT_FALSE(goodput_json(g)["checkpoint"].contains("from"));
  EXPECT_TRUE(g.study.search.has_value()) << "auto interval: the simulated best";
}

TEST(GoodputCheckpoint, BadFieldIsOneLineNamingIt) {
  EvalContext context;
  try {  // goodput's Monte Carlo takes no stall a save longer than its interval
    (void)evaluate_goodput(saving_query(saving_job("blocking", 1)), context);
    FAIL() << "a blocking save longer than its interval";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("/checkpoint/every_steps"), std::string::npos) << e.what();
  }
  try {
    (void)evaluate_goodput(saving_query(saving_job("sometimes", 50)), context);
    FAIL() << "an unknown mode";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("/checkpoint/mode"), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace ctwin::api
