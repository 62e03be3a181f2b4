// Degraded fabric parts in a training step (api::evaluate with --degrade nic:/link:/leaf:): they
// slow the traffic of the step that crosses them on the shared flow fabric, and nothing else.

#include "ctwin/api/step_degradation.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ctwin/api/evaluate.hpp"
#include "ctwin/api/report_json.hpp"
#include "ctwin/core/error.hpp"
#include "plan_scenario.hpp"

namespace ctwin::api {
namespace {

Scenario base() { return Scenario::load(std::string(CTWIN_SOURCE_DIR) + "/scenarios/default.json"); }

StepResult step(const Scenario& s, const std::vector<std::string>& degrade, replay::CommModel comm = replay::CommModel::kAuto) {
  EvalContext context;
  StepQuery query;
  query.comm = comm;
  query.degrade = degrade;
  return evaluate(s, context, query);
}

std::string report(const StepResult& r) { return step_report_json(r.scenario, r.step.report).dump(); }

TEST(StepDegradation, ASlowNicOnExposedDpTrafficLengthensTheStep) {
  const double healthy = step(exposed_dp_scenario(), {}).step.report.step_time_s;
  const double slow = step(exposed_dp_scenario(), {"nic:0=0.25"}).step.report.step_time_s;
  // Rank 0's NIC carries rail 0 of its stage's DP ring and of the pipeline sends: at a quarter of
  // its rate each of those transfers takes up to four times as long.
  EXPECT_GT(slow, healthy * 1.01) << healthy << " s healthy";
  // Only part of the step crosses it, so it costs less than running the whole step's traffic at 1/4.
  EXPECT_LT(slow, healthy * 4);
  // Rank 8 (node 1, rail 0: one NIC per GPU on a DGX H100) is another NIC of the same rail's ring.
  const double other = step(exposed_dp_scenario(), {"nic:8=0.25"}).step.report.step_time_s;
  EXPECT_GT(other, healthy * 1.01);
  // Slower still at a lower share (monotone).
  EXPECT_GT(step(exposed_dp_scenario(), {"nic:0=0.1"}).step.report.step_time_s, slow);
}

TEST(StepDegradation, ALinkNoFlowCrossesLeavesTheStepUnchangedByteForByte) {
  // Rail-aligned DP rings and pipeline sends stay under their rail's leaf (PXN moves a transfer to
  // the destination's rail inside the node first): no flow of the step goes up to a spine.
  const std::string healthy = report(step(base(), {}));
  EXPECT_EQ(report(step(base(), {"link:leaf0.up0=0.25"})), healthy);
  EXPECT_EQ(report(step(base(), {"leaf:3=uplinks:0.5"})), healthy);
  // While a NIC the step's traffic crosses changes it.
  EXPECT_NE(report(step(base(), {"nic:0=0.1"})), healthy);
}

TEST(StepDegradation, FullShareChangesNothing) {
  const std::string healthy = report(step(exposed_dp_scenario(), {}));
  EXPECT_EQ(report(step(exposed_dp_scenario(), {"nic:0=1"})), healthy);
  EXPECT_EQ(report(step(exposed_dp_scenario(), {"link:n0.nic0=1"})), healthy);
}

TEST(StepDegradation, TheIsolatedStepRefusesFabricPartsAndTheSharedAnalyticalOneTakesThem) {
  const Scenario analytical = exposed_dp_scenario().with("network", "analytical");
  try {
    (void)step(analytical, {"nic:0=0.25"});
    FAIL() << "a fabric part on an isolated step was accepted";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("nic:0=0.25"), std::string::npos) << what;
    EXPECT_NE(what.find("isolated"), std::string::npos) << what;
  }
  // The isolated step of the flow network likewise.
  EXPECT_THROW((void)step(exposed_dp_scenario(), {"link:n0.nic0=0.5"}, replay::CommModel::kIsolated), InputError);
  // A GPU's terms need no fabric.
  EXPECT_GT(step(analytical, {"gpu:0=0.5"}).step.report.step_time_s, step(analytical, {}).step.report.step_time_s);
  // With every op's traffic on the shared flow fabric the analytical network's step takes them.
  const double healthy = step(analytical, {}, replay::CommModel::kShared).step.report.step_time_s;
  EXPECT_GT(step(analytical, {"nic:0=0.25"}, replay::CommModel::kShared).step.report.step_time_s, healthy * 1.01);
}

TEST(StepDegradation, BadTermsNameTheFlag) {
  for (const char* bad : {"switch:0=0.5", "nic:0", "nic:64=0.5", "nic:0=0", "nic:0=1.5", "link:n99.nic0=0.5",
                          "leaf:0=0.5", "hbm:0=2", "hbm:x=0.5"}) {
    try {
      (void)step(base(), {bad});
      ADD_FAILURE() << bad << " was accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("--degrade"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace ctwin::api
