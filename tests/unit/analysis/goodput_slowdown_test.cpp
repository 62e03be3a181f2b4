// Failures that slow the job instead of stopping it (a dual-plane leaf down, docs/goodput.md):
// each lasts its part's repair (exponential, mean MTTR) and costs (1 − 1/effect) of the training
// it overlaps. Oracles: such a failure never interrupts the job; the other failure draws are those
// of the run without it; the mean time lost is λ·D·MTTR·(1 − 1/effect)·τ/(τ+δ) within three
// standard errors (a compound Poisson sum); the run's time still adds up.

#include <gtest/gtest.h>

#include <cmath>

#include "ctwin/analysis/goodput_simulation.hpp"
#include "ctwin/core/error.hpp"
#include "goodput_time.hpp"

namespace ctwin::analysis {
namespace {

GoodputConfig slowdown_config() {
  GoodputConfig c;
  c.duration_s = 30 * kDay;
  c.interval_s = kHour;
  c.blocking_s = 10;
  c.detection_s = 300;
  c.launch_s = 600;
  c.load_s = 120;
  c.runs = 2000;
  c.seed = 7;
  return c;
}

TEST(GoodputSlowdown, APartThatOnlySlowsNeverInterruptsAndCostsItsClosedForm) {
  GoodputConfig c = slowdown_config();
  const double rate = 0.01 / kHour;  // 7.2 a run; λ·MTTR = 0.04: overlaps are rare
  const double repair = 4 * kHour;
  const double effect = 1.6;
  c.slowdowns = {{"leaf_switch", rate, repair, effect}};
  const GoodputResult r = simulate_goodput(c);
  EXPECT_EQ(r.interruptions.mean, 0);
  EXPECT_EQ(r.time.restart_s + r.time.detection_s + r.time.lost_work_s, 0);
  const double events = rate * c.duration_s;
  const double loss = 1 - 1 / effect;
  const double training_share = c.interval_s / (c.interval_s + c.blocking_s);
  const double expected = events * repair * loss * training_share;
  // Compound Poisson: variance = λ·D·E[(repair·loss)²], E[repair²] = 2·MTTR² for an exponential.
  const double se = std::sqrt(events * 2 * repair * repair * loss * loss / c.runs);
  EXPECT_NEAR(r.slowdown_events, events, 3 * std::sqrt(events / c.runs));
  EXPECT_LT(std::abs(r.time.slowdown_s - expected), 3 * se)
      << "simulated " << r.time.slowdown_s << " s, closed form " << expected << " s, se " << se;
  EXPECT_EQ(r.time.straggler_s, 0);
  EXPECT_NEAR(r.time.useful_s + r.time.slowdown_s + r.time.checkpoint_s, c.duration_s, 1e-6 * c.duration_s);
}

TEST(GoodputSlowdown, InterruptionDrawsAreThoseOfTheRunWithoutIt) {
  GoodputConfig c = slowdown_config();
  c.runs = 200;
  c.causes = {{"gpu", 0.2 / kHour, 1, 2 * kDay}, {"leaf_switch", 0, 0, 0}};
  c.spares.hot = 4;
  const GoodputResult before = simulate_goodput(c);
  c.slowdowns = {{"leaf_switch", 0.05 / kHour, 4 * kHour, 2.0}};
  const GoodputResult with = simulate_goodput(c);
  EXPECT_EQ(with.interruptions_by_cause, before.interruptions_by_cause);
  EXPECT_EQ(with.interruptions_by_cause[1], 0);
  EXPECT_EQ(with.mttr_s, before.mttr_s);
  EXPECT_EQ(with.time.lost_work_s, before.time.lost_work_s);
  EXPECT_GT(with.time.slowdown_s, 0);
  EXPECT_LT(with.ettr.mean, before.ettr.mean);
  const TimeAccount& t = with.time;
  EXPECT_NEAR(t.useful_s + t.slowdown_s + t.checkpoint_s + t.lost_work_s + t.detection_s + t.waiting_s + t.switchover_s +
                  t.restart_s,
              c.duration_s, 1e-6 * c.duration_s);
}

TEST(GoodputSlowdown, EffectOneCostsNothingAndBadValuesAreRefused) {
  GoodputConfig c = slowdown_config();
  c.runs = 50;
  c.slowdowns = {{"leaf_switch", 0.05 / kHour, 4 * kHour, 1.0}};
  const GoodputResult r = simulate_goodput(c);
  EXPECT_GT(r.slowdown_events, 0);
  EXPECT_EQ(r.time.slowdown_s, 0);
  for (const SlowdownCause& bad : {SlowdownCause{"leaf_switch", -1, kHour, 1.5}, SlowdownCause{"leaf_switch", 1 / kHour, 0, 1.5},
                                  SlowdownCause{"leaf_switch", 1 / kHour, kHour, 0.5},
                                  SlowdownCause{"leaf_switch", 1 / kHour, kHour, NAN}}) {
    c.slowdowns = {bad};
    EXPECT_THROW((void)simulate_goodput(c), InputError);
  }
}

}  // namespace
}  // namespace ctwin::analysis
