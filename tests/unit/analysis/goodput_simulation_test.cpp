// Oracles of the goodput Monte Carlo: exact accounting with no failures, Poisson counts against
// rate × time, Young/Daly's optimum, conservation of time, spares and determinism.

#include "ctwin/analysis/goodput_simulation.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "ctwin/core/error.hpp"
#include "goodput_time.hpp"

namespace ctwin::analysis {
namespace {

GoodputConfig quiet_config() {
  GoodputConfig c;
  c.duration_s = 10 * kDay;
  c.interval_s = 30 * 60;
  c.blocking_s = 45;
  c.detection_s = 300;
  c.launch_s = 600;
  c.load_s = 120;
  c.runs = 50;
  c.seed = 7;
  return c;
}

double accounted(const TimeAccount& t) {
  return t.useful_s + t.checkpoint_s + t.lost_work_s + t.detection_s + t.waiting_s + t.switchover_s + t.restart_s;
}

TEST(GoodputSimulation, WithoutFailuresEttrIsOneMinusCheckpointOverheadExactly) {
  GoodputConfig c = quiet_config();
  c.causes = {{"never", 0.0, 1, kHour}};
  c.duration_s = 480 * (c.interval_s + c.blocking_s);  // whole cycles
  const GoodputResult r = simulate_goodput(c);
  const double overhead = c.blocking_s / (c.interval_s + c.blocking_s);
  EXPECT_NEAR(r.ettr.mean, 1 - overhead, 1e-12);
  EXPECT_NEAR(r.ettr.stddev, 0, 1e-12);
  EXPECT_NEAR(r.goodput.mean, 1 - overhead, 1e-12);
  EXPECT_EQ(r.interruptions.mean, 0);
  EXPECT_NEAR(r.time.checkpoint_s, 480 * c.blocking_s, 1e-6);
  EXPECT_EQ(r.availability, 1);
}

TEST(GoodputSimulation, MeanInterruptionsWithinThreeStandardErrorsOfRateTimesTime) {
  GoodputConfig c = quiet_config();
  c.causes = {{"gpu", 0.3 / kHour, 1, 5 * kDay}, {"software", 0.05 / kHour, 0, 0}, {"leaf", 0.01 / kHour, 32, 4 * kHour}};
  c.spares.hot = 64;
  c.runs = 2000;
  const GoodputResult r = simulate_goodput(c);
  const double expected = (0.3 + 0.05 + 0.01) * c.duration_s / kHour;
  EXPECT_DOUBLE_EQ(r.expected_interruptions, expected);
  const double standard_error = r.interruptions.stddev / std::sqrt(c.runs);
  EXPECT_LT(std::abs(r.interruptions.mean - expected), 3 * standard_error)
      << "mean " << r.interruptions.mean << " expected " << expected << " se " << standard_error;
  // Each cause by its share, with its own Poisson standard error.
  const double rates[3] = {0.3, 0.05, 0.01};
  for (int i = 0; i < 3; ++i) {
    const double e = rates[i] * c.duration_s / kHour;
    EXPECT_LT(std::abs(r.interruptions_by_cause[static_cast<std::size_t>(i)] - e), 3 * std::sqrt(e / c.runs)) << i;
  }
}

TEST(GoodputSimulation, TimeAddsUpToTheRun) {
  GoodputConfig c = quiet_config();
  c.causes = {{"gpu", 0.2 / kHour, 1, 2 * kDay}, {"software", 0.1 / kHour, 0, 0}};
  c.spares.hot = 2;
  c.spares.cold = 1;
  c.persist_s = 600;  // asynchronous
  const GoodputResult r = simulate_goodput(c);
  EXPECT_NEAR(accounted(r.time), c.duration_s, 1e-6 * c.duration_s);
  EXPECT_NEAR(r.ettr.mean, r.time.useful_s / c.duration_s, 1e-12);
  EXPECT_GT(r.time.lost_work_s, 0);
  EXPECT_NEAR(r.availability,
              1 - (r.time.detection_s + r.time.waiting_s + r.time.switchover_s + r.time.restart_s) / c.duration_s, 1e-12);
}

TEST(GoodputSimulation, SimulatedOptimumMatchesYoungDaly) {
  // Young/Daly's assumptions: exponential failures, nothing but restarts (no spares involved),
  // checkpoint cost much smaller than the MTBF.
  GoodputConfig c;
  const double mtbf = 10 * kHour;
  c.causes = {{"any", 1 / mtbf, 0, 0}};
  c.duration_s = 60 * kDay;
  c.blocking_s = 60;
  c.detection_s = 60;
  c.launch_s = 120;
  c.load_s = 60;
  c.runs = 400;
  c.seed = 11;
  const double young = young_daly_interval_s(c.blocking_s, mtbf);
  const IntervalSearch s = search_interval(c, young / 4, young * 4, 25, 0);
  EXPECT_LT(std::abs(s.best_interval_s / young - 1), 0.10) << "best " << s.best_interval_s << " s, Young " << young << " s";
  const double formula = first_order_ettr(young, c.blocking_s, mtbf, c.detection_s + c.launch_s + c.load_s);
  EXPECT_LT(std::abs(s.best_ettr - formula), 0.01) << "simulated " << s.best_ettr << ", formula " << formula;
}

TEST(GoodputSimulation, SameSeedSameResultOtherSeedOtherResult) {
  GoodputConfig c = quiet_config();
  c.causes = {{"gpu", 0.2 / kHour, 1, 2 * kDay}};
  c.spares.hot = 1;
  const GoodputResult a = simulate_goodput(c);
  const GoodputResult b = simulate_goodput(c);
  EXPECT_EQ(a.ettr.mean, b.ettr.mean);
  EXPECT_EQ(a.interruptions.mean, b.interruptions.mean);
  EXPECT_EQ(a.time.waiting_s, b.time.waiting_s);
  c.seed = 8;
  EXPECT_NE(simulate_goodput(c).ettr.mean, a.ettr.mean);
}

TEST(GoodputSimulation, AmpleHotSparesNeverWaitAndSwitchEveryNodeFailure) {
  GoodputConfig c = quiet_config();
  c.causes = {{"gpu", 0.1 / kHour, 1, kDay}};
  c.spares.hot = 1000;
  c.spares.hot_swap_s = 30;
  c.detection_s = 0;
  c.launch_s = 0;
  c.load_s = 0;
  const GoodputResult r = simulate_goodput(c);
  EXPECT_EQ(r.time.waiting_s, 0);
  EXPECT_EQ(r.pool_dry_probability, 0);
  EXPECT_EQ(r.hot_dry_probability, 0);
  // Every failure costs one switchover, less those cut short by the next failure or the run's end.
  EXPECT_LE(r.time.switchover_s, r.interruptions.mean * 30 + 1e-9);
  EXPECT_GT(r.time.switchover_s, r.interruptions.mean * 30 * 0.99);
}

TEST(GoodputSimulation, EmptyPoolWaitsForRepairsOrShrinks) {
  GoodputConfig c = quiet_config();
  c.causes = {{"gpu", 0.1 / kHour, 1, 12 * kHour}};
  c.layout = {16, 2, 1};
  const GoodputResult wait = simulate_goodput(c);
  EXPECT_GT(wait.time.waiting_s, 0);
  EXPECT_EQ(wait.pool_dry_probability, 1);
  EXPECT_NEAR(wait.goodput.mean, wait.ettr.mean, 1e-12);
  c.spares.on_empty = OnEmptyPool::kShrink;
  const GoodputResult shrink = simulate_goodput(c);
  EXPECT_LT(shrink.time.waiting_s, wait.time.waiting_s);
  EXPECT_LT(shrink.goodput.mean, shrink.ettr.mean);  // fewer replicas train fewer tokens
  EXPECT_GT(shrink.time.shrunk_s, 0);
}

TEST(GoodputSimulation, RejectsAnIntervalShorterThanTheCheckpointWrite) {
  GoodputConfig c = quiet_config();
  c.interval_s = 30;
  EXPECT_THROW((void)simulate_goodput(c), InputError);
  c.interval_s = 600;
  c.persist_s = 1200;  // asynchronous upload longer than a cycle
  EXPECT_THROW((void)simulate_goodput(c), InputError);
}

}  // namespace
}  // namespace ctwin::analysis
