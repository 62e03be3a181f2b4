// A slow GPU gates its synchronous stage: oracles with free communication (the step is the sum
// of compute, so one stage at half speed doubles a single-stage step) and the parse contract.

#include "ctwin/replay/degrade.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "ctwin/core/error.hpp"
#include "ctwin/replay/scenario.hpp"
#include "ctwin/replay/training_step.hpp"
#include "test_scenario.hpp"

namespace ctwin::replay {
namespace {

double step_time(const Scenario& s, const std::vector<GpuSlowdown>& slow) {
  StepOptions options;
  options.free_communication = true;
  options.slowdowns = slow;
  return simulate_step(s, options).report.step_time_s;
}

TEST(Degrade, ParsesGpuRankAndSpeed) {
  const GpuSlowdown s = parse_gpu_slowdown("gpu:12=0.8", "--degrade", 64);
  EXPECT_EQ(s.gpu, 12);
  EXPECT_DOUBLE_EQ(s.speed, 0.8);
  for (const char* bad : {"gpu:12", "gpu:x=0.5", "gpu:64=0.5", "gpu:-1=0.5", "gpu:3=0", "gpu:3=1.5", "link:3=0.5", "gpu:3=fast", "hbm:3=0", "hbm:64=0.5"}) {
    EXPECT_THROW((void)parse_gpu_slowdown(bad, "--degrade", 64), InputError) << bad;
  }
}

// `gpu:3=1e-300` overflowed a kernel's time in int64 picoseconds (an internal error; issue 36).
TEST(Degrade, ASpeedBelowTheFloorIsAFailedGpu) {
  for (const char* bad : {"gpu:3=1e-300", "gpu:3=0.0009", "hbm:3=1e-12"}) {
    try {
      (void)parse_gpu_slowdown(bad, "--degrade", 64);
      ADD_FAILURE() << bad << " was accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("failed part, not a slow one"), std::string::npos) << e.what();
    }
  }
  EXPECT_DOUBLE_EQ(parse_gpu_slowdown("gpu:3=0.001", "--degrade", 64).speed, 0.001);
}

TEST(Degrade, ParsesHbmShare) {
  const GpuSlowdown s = parse_gpu_slowdown("hbm:7=0.5", "--degrade", 64);
  EXPECT_EQ(s.gpu, 7);
  EXPECT_DOUBLE_EQ(s.speed, 1.0);
  EXPECT_DOUBLE_EQ(s.hbm, 0.5);
}

// Each kernel's roofline time is max(compute, memory): halving the HBM bandwidth slows the step,
// by less than halving the GPU's speed does, since the compute-bound kernels (large GEMMs, flash
// attention) keep their time.
TEST(Degrade, SlowHbmSlowsOnlyTheMemoryBoundPart) {
  const Scenario s = scenario({"parallel.pp=1"});
  const double nominal = step_time(s, {});
  EXPECT_DOUBLE_EQ(step_time(s, {{5, 1.0, 1.0}}), nominal);
  const double hbm = step_time(s, {{5, 1.0, 0.5}});
  EXPECT_GT(hbm, nominal * 1.01);
  EXPECT_LT(hbm, nominal * 2.0 * 0.95);
  // A lower share slows more.
  EXPECT_GT(step_time(s, {{5, 1.0, 0.25}}), hbm);
  // Every kernel of a GPU at half speed takes twice its time, at least as long as with half the
  // HBM bandwidth (each roofline time at most doubles): with both GPUs in one stage, the slow GPU
  // alone sets the step.
  EXPECT_DOUBLE_EQ(step_time(s, {{5, 0.5, 1.0}, {6, 1.0, 0.5}}), step_time(s, {{5, 0.5, 1.0}}));
  // Both on one GPU compound: slower than either alone.
  EXPECT_GT(step_time(s, {{5, 0.8, 0.5}}), std::max(hbm, step_time(s, {{5, 0.8, 1.0}})));
}

TEST(Degrade, HalfSpeedDoublesASingleStageStepWithFreeCommunication) {
  const Scenario s = scenario({"parallel.pp=1"});
  const double nominal = step_time(s, {});
  EXPECT_DOUBLE_EQ(step_time(s, {{5, 1.0}}), nominal);
  EXPECT_NEAR(step_time(s, {{5, 0.5}}) / nominal, 2.0, 1e-6);
}

TEST(Degrade, TheSlowestGpuOfAStageGatesIt) {
  const Scenario s = scenario({});  // pp 2: GPUs 0-31 are stage 0, 32-63 stage 1
  const double nominal = step_time(s, {});
  const double one = step_time(s, {{40, 0.5}});
  EXPECT_GT(one, nominal * 1.2);
  EXPECT_LT(one, nominal * 2.0);  // the other stage still runs at full speed
  EXPECT_DOUBLE_EQ(step_time(s, {{40, 0.5}, {41, 0.8}}), one);
  EXPECT_GT(step_time(s, {{0, 0.5}, {40, 0.5}}), one);
  EXPECT_NEAR(step_time(s, {{0, 0.5}, {40, 0.5}}) / nominal, 2.0, 1e-6);  // every stage at half speed
}

}  // namespace
}  // namespace ctwin::replay
