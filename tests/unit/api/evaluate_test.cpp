#include "ctwin/api/evaluate.hpp"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "ctwin/api/report_json.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/replay/training_step.hpp"

namespace ctwin::api {
namespace {

std::string default_path() { return std::string(CTWIN_SOURCE_DIR) + "/scenarios/default.json"; }

std::string step_json(const Scenario& scenario, EvalContext& context) {
  const StepResult result = evaluate(scenario, context);
  return step_report_json(result.scenario, result.step.report).dump();
}

TEST(Scenario, WithReturnsAChangedCopyAndLeavesTheOriginal) {
  const Scenario base = Scenario::load(default_path());
  const Scenario tp4 = base.with("parallel.tp", 4);
  EXPECT_EQ(base.resolve().split.tp, 2);
  EXPECT_EQ(tp4.resolve().split.tp, 4);
  EXPECT_EQ(tp4.with("parallel.tp", 8).resolve().split.tp, 8);
  // A typed value and the --set text of the same value give the same scenario.
  EXPECT_EQ(base.with("cluster.server.nics.bandwidth", "800Gbps").resolve().cluster_key,
            base.with_assignments({"cluster.server.nics.bandwidth=800Gbps"}).resolve().cluster_key);
  EXPECT_NE(base.resolve().cluster_key, base.with("cluster.server.nics.bandwidth", "800Gbps").resolve().cluster_key);
}

TEST(Scenario, ErrorsNameTheScenarioAndFieldNotAFlag) {
  const Scenario base = Scenario::load(default_path());
  try {
    (void)base.with("parallel.tp", 3).resolve();
    FAIL() << "tp 3 does not divide the heads";
  } catch (const InputError& e) {
    EXPECT_EQ(e.source(), default_path());
    EXPECT_NE(std::string(e.what()).find("tp"), std::string::npos) << e.what();
  }
  try {
    (void)base.with("parallel..tp", 2).resolve();
    FAIL() << "an empty field name is refused";
  } catch (const InputError& e) {
    EXPECT_EQ(e.source(), default_path());
  }
  EXPECT_THROW((void)Scenario::from_json_text("{\"model\": ", "notebook cell"), InputError);
  try {
    (void)Scenario::from_json_text("{\"model\": ", "notebook cell");
  } catch (const InputError& e) {
    EXPECT_EQ(e.source(), "notebook cell");
  }
}

// A split set on the typed scenario is the split the document would have given: the same step,
// to the byte, and the same checks (the planner uses it instead of rewriting `parallel`).
TEST(Scenario, WithSplitMatchesTheDocumentsSplitAndIsChecked) {
  const Scenario base = Scenario::load(default_path()).with("network", "analytical");
  const replay::Scenario read = base.resolve();
  workload::ParallelConfig tp4 = read.split;
  tp4.tp = 4;
  tp4.pp = 1;
  EXPECT_EQ(replay::simulate_step(read.with_split(tp4, read.gpus)).report.step_time_s,
            replay::simulate_step(base.with("parallel.tp", 4).with("parallel.pp", 1).resolve()).report.step_time_s);
  workload::ParallelConfig tp3 = read.split;
  tp3.tp = 3;
  try {
    (void)read.with_split(tp3, read.gpus);
    FAIL() << "tp 3 does not divide the heads";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("tp"), std::string::npos) << e.what();
  }
  // The file's own split is not checked before a caller replaces it: tp 3 reads, and runs as tp 2.
  const replay::Scenario unchecked = base.with("parallel.tp", 3).resolve_for_split();
  EXPECT_EQ(unchecked.split.tp, 3);
  EXPECT_EQ(unchecked.with_split(read.split, read.gpus).split.tp, 2);
}

TEST(Scenario, FromJsonResolvesBundledPathsLikeAFile) {
  const Scenario loaded = Scenario::load(default_path());
  const Scenario built = Scenario::from_json(loaded.document(), "in memory");
  EXPECT_EQ(built.resolve().cluster_key, loaded.resolve().cluster_key);
  EXPECT_EQ(built.resolve().model.name, loaded.resolve().model.name);
}

// A shared context only saves work: every result equals the one a fresh context gives.
TEST(EvalContext, ReusedContextGivesTheResultsOfAFreshOne) {
  const Scenario base = Scenario::load(default_path());
  for (const char* network : {"analytical", "flow"}) {
    EvalContext shared;
    for (int tp : {2, 4, 2, 8}) {
      const Scenario s = base.with("network", network).with("parallel.tp", tp);
      EvalContext fresh;
      EXPECT_EQ(step_json(s, shared), step_json(s, fresh)) << network << " tp " << tp;
    }
    const auto counts = shared.counts();
    EXPECT_EQ(counts.collective_caches, 1) << "one cluster, one network";
    if (std::string(network) == "flow") {
      EXPECT_EQ(counts.fabrics_built, 1);
      EXPECT_EQ(counts.fabric_reuses, 3);
    } else {
      EXPECT_EQ(counts.fabrics_built, 0) << "the analytical step needs no whole-cluster build";
    }
  }
}

TEST(EvalContext, ThreadsSharingOneContextGiveTheSerialResults) {
  const Scenario base = Scenario::load(default_path()).with("network", "analytical");
  const std::vector<Scenario> scenarios{base.with("parallel.tp", 1), base.with("parallel.tp", 2),
                                        base.with("parallel.tp", 4), base.with("parallel.tp", 8),
                                        base.with("training.micro_batch", 2), base.with("parallel.pp", 4)};
  std::vector<std::string> serial;
  for (const auto& s : scenarios) {
    EvalContext fresh;
    serial.push_back(step_json(s, fresh));
  }
  EvalContext shared;
  std::vector<std::string> parallel(scenarios.size());
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < scenarios.size(); ++i) {
    threads.emplace_back([&, i] { parallel[i] = step_json(scenarios[i], shared); });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(parallel, serial);
}

TEST(Evaluate, BuildCallsMatchTheLayersTheyWrap) {
  EvalContext context;
  Build build{"topologies/dgx-h100-superpod.json", 64, {}, "--set", ""};
  const auto summary = evaluate_fabric(build, context);
  EXPECT_EQ(summary.gpus, 64);
  EXPECT_EQ(summary.nodes, 8);
  build.changes.push_back({"server.nics.bandwidth", "800Gbps"});
  EXPECT_DOUBLE_EQ(evaluate_fabric(build, context).injection_per_gpu.gigabits_per_second(), 800);
  EXPECT_EQ(context.counts().fabrics_built, 2) << "a changed topology is another build";

  collectives::CollectiveQuery query;
  query.sizes = {Bytes(1 << 30)};
  query.network = network::ModelKind::kAnalytical;
  const auto row = evaluate_collective(build, query, context).rows.front();
  EXPECT_GT(row.busbw_GBps, 0);
  EXPECT_EQ(context.counts().fabric_reuses, 1);

  build.changes.push_back({"server..nics", 1});
  try {
    (void)evaluate_fabric(build, context);
    FAIL() << "an empty field name is refused";
  } catch (const InputError& e) {
    EXPECT_EQ(e.source(), "--set");
  }
}

}  // namespace
}  // namespace ctwin::api
