// `goodput` prices a scenario's own checkpoint (replay/checkpoint_spec.hpp) with the step's model,
// so `run` and `goodput` agree on one save. Oracles: goodput's blocking part is the step report's
// stall (blocking: the save; async: the device→host copy), its durable-later part the save, its
// load the step's load, its interval every_steps × the step, its bytes the scenario's bytes per
// parameter; --storage or --checkpoint-interval set to anything but auto takes that part back;
// a scenario without the field keeps goodput's own options.

#include <gtest/gtest.h>

#include <string>

#include "ctwin/api/evaluate.hpp"
#include "ctwin/studies/goodput.hpp"

namespace ctwin::api {
namespace {

// Llama 3 8B on 64 GPUs of the RapidFS build, its tier given a write rate (10 GiB/s a server: an
// assumption of the test, no vendor figure), the step on the analytical network.
Scenario rapidfs_job() {
  return Scenario::load(std::string(CTWIN_SOURCE_DIR) + "/scenarios/io/llama3-70b-rapidfs.json")
      .with_assignments({"model=models/llm/llama3-8b.json", "gpus=64", "training.global_batch=128", "parallel.tp=2",
                         "parallel.pp=2", "parallel.vpp=1", "parallel.schedule=1f1b", "data=null",
                         "cluster.storage.tiers.0.write_per_server=10GiBps", "network=analytical"});
}

Scenario saving(const std::string& mode, const std::string& more = "") {
  return rapidfs_job().with_assignments(
      {R"(checkpoint={"every_steps": 50, "mode": ")" + mode + R"(", "tier": "pfs")" + more + "}"});
}

GoodputQuery month_of(const Scenario& scenario) {
  GoodputQuery q;
  q.scenario = scenario;
  q.days = 30;
  q.runs = 50;
  return q;
}

TEST(GoodputCheckpoint, ABlockingSaveCostsGoodputWhatItCostsTheStep) {
  EvalContext context;
  const Scenario job = saving("blocking");
  const replay::StepReport step = evaluate(job, context).step.report;
  ASSERT_TRUE(step.checkpoint);
  const GoodputEvaluation g = evaluate_goodput(month_of(job), context);
  EXPECT_TRUE(g.checkpoint_from_scenario);
  EXPECT_TRUE(g.interval_from_scenario);
  const analysis::CheckpointCost& c = g.study.checkpoint;
  EXPECT_EQ(c.tier, "cluster:pfs");
  EXPECT_FALSE(c.asynchronous);
  EXPECT_DOUBLE_EQ(c.blocking_s, step.checkpoint->stall_s);
  EXPECT_DOUBLE_EQ(c.load_s, step.checkpoint->load_s);
  EXPECT_EQ(c.size.bytes, step.checkpoint->bytes);
  EXPECT_EQ(c.size.writer_nodes, step.checkpoint->writer_nodes);
  EXPECT_DOUBLE_EQ(g.study.config.interval_s, 50 * step.step_time_s);
  EXPECT_FALSE(g.study.search) << "the scenario gave the interval: nothing to search";
  const nlohmann::json json = goodput_json(g);
  EXPECT_EQ(json["checkpoint"]["from"], "scenario");
  EXPECT_EQ(json["interval_from"], "scenario");
}

TEST(GoodputCheckpoint, AnAsyncSaveBlocksForItsHostCopyAndIsDurableAfterTheSave) {
  EvalContext context;
  const Scenario job = saving("async");
  const replay::StepReport step = evaluate(job, context).step.report;
  ASSERT_TRUE(step.checkpoint);
  const analysis::CheckpointCost c = evaluate_goodput(month_of(job), context).study.checkpoint;
  EXPECT_TRUE(c.asynchronous);
  EXPECT_GT(step.checkpoint->copy_s, 0);
  EXPECT_DOUBLE_EQ(c.blocking_s, step.checkpoint->copy_s);
  EXPECT_DOUBLE_EQ(c.persist_s, step.checkpoint->save_s);
  // The write outlasts no interval here, so the step's stall is the copy alone, as goodput's.
  EXPECT_DOUBLE_EQ(step.checkpoint->stall_s, step.checkpoint->copy_s);
}

TEST(GoodputCheckpoint, TheScenariosBytesPerParameterAreGoodputs) {
  EvalContext context;
  const Scenario job = saving("blocking", R"(, "bytes_per_parameter": 10)");
  const replay::StepReport step = evaluate(job, context).step.report;
  const analysis::CheckpointCost c = evaluate_goodput(month_of(job), context).study.checkpoint;
  EXPECT_EQ(c.size.bytes_per_parameter, 10);
  EXPECT_EQ(c.size.bytes, step.checkpoint->bytes);
  EXPECT_DOUBLE_EQ(c.blocking_s, step.checkpoint->stall_s);
}

TEST(GoodputCheckpoint, OptionsOtherThanAutoOverrideTheScenario) {
  EvalContext context;
  GoodputQuery q = month_of(saving("blocking"));
  q.storage = "pfs";
  q.interval = "1h";
  const GoodputEvaluation g = evaluate_goodput(q, context);
  EXPECT_FALSE(g.checkpoint_from_scenario);
  EXPECT_FALSE(g.interval_from_scenario);
  EXPECT_EQ(g.study.checkpoint.tier, "pfs");
  EXPECT_NEAR(g.study.config.interval_s, 3600, g.study.step_time_s) << "the given hour, in whole steps";
  EXPECT_EQ(goodput_json(g)["checkpoint"]["from"], "options");
  EXPECT_EQ(goodput_json(g)["interval_from"], "given");
  // Without the field, goodput keeps its own tier choice and the scenario is not consulted.
  GoodputQuery plain = month_of(rapidfs_job());
  plain.interval = "1h";
  const GoodputEvaluation p = evaluate_goodput(plain, context);
  EXPECT_FALSE(p.checkpoint_from_scenario);
  EXPECT_EQ(p.study.checkpoint.size.bytes_per_parameter, 14);
}

}  // namespace
}  // namespace ctwin::api
