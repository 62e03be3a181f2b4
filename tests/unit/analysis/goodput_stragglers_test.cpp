// Straggler events in the goodput Monte Carlo: GPUs throttled at a rate, each slowing the
// synchronous job by its step effect while it lasts. Oracles: no events leaves every other draw
// and result as it was; the mean time lost is rate × GPUs × D × duration × (1 − 1/effect).

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "ctwin/analysis/goodput_simulation.hpp"
#include "ctwin/core/error.hpp"
#include "goodput_time.hpp"

namespace ctwin::analysis {
namespace {

GoodputConfig config() {
  GoodputConfig c;
  c.duration_s = 30 * kDay;
  c.interval_s = kHour;
  c.blocking_s = 1;
  c.detection_s = 300;
  c.launch_s = 600;
  c.load_s = 120;
  c.runs = 2000;
  c.seed = 11;
  return c;
}

void expect_same(const GoodputResult& a, const GoodputResult& b) {
  EXPECT_EQ(a.ettr.mean, b.ettr.mean);
  EXPECT_EQ(a.ettr.p5, b.ettr.p5);
  EXPECT_EQ(a.goodput.mean, b.goodput.mean);
  EXPECT_EQ(a.interruptions.mean, b.interruptions.mean);
  EXPECT_EQ(a.interruptions_by_cause, b.interruptions_by_cause);
  EXPECT_EQ(a.time.useful_s, b.time.useful_s);
  EXPECT_EQ(a.time.lost_work_s, b.time.lost_work_s);
  EXPECT_EQ(a.time.waiting_s, b.time.waiting_s);
  EXPECT_EQ(a.pool_dry_probability, b.pool_dry_probability);
  EXPECT_EQ(a.mttr_s, b.mttr_s);
}

// `--straggler-rate 1e9/h` grew past 2.6 GB drawing events without a word (issue 36): a run's
// events and a command's are bounded, refused with the estimate before anything is drawn.
TEST(GoodputStragglers, EventCountsPastTheBoundAreRefusedWithTheEstimate) {
  GoodputConfig c = config();
  c.stragglers = {1e9 / kHour * 1024, kHour, 1024, [](long long) { return 1.5; }};
  try {
    (void)simulate_goodput(c);
    FAIL() << "1e9 straggler events per GPU-hour were simulated";
  } catch (const InputError& e) {
    EXPECT_EQ(e.source(), "--straggler-rate");
    EXPECT_NE(std::string(e.what()).find("events per run"), std::string::npos) << e.what();
  }
  // Within a run's bound, but not times the runs.
  c.stragglers.rate_per_s = 5e5 / c.duration_s;
  c.runs = 1'000'000;
  try {
    (void)simulate_goodput(c);
    FAIL() << "5e11 events were simulated";
  } catch (const InputError& e) {
    EXPECT_EQ(e.source(), "--runs");
  }
}

TEST(GoodputStragglers, RateZeroGivesThePreviousResultsExactly) {
  GoodputConfig c = config();
  c.runs = 200;
  c.causes = {{"gpu", 0.2 / kHour, 1, 2 * kDay}, {"software", 0.05 / kHour, 0, 0}};
  c.spares.hot = 2;
  const GoodputResult before = simulate_goodput(c);
  c.stragglers = {0.0, kHour, 1024, [](long long) { return 1.5; }};
  expect_same(simulate_goodput(c), before);
  EXPECT_EQ(simulate_goodput(c).time.straggler_s, 0);
}

TEST(GoodputStragglers, FailureDrawsAreUntouchedByStragglers) {
  // Stragglers have their own random stream: the interruptions are those of the run without them.
  GoodputConfig c = config();
  c.runs = 200;
  c.causes = {{"gpu", 0.2 / kHour, 1, 2 * kDay}};
  c.spares.hot = 4;
  const GoodputResult before = simulate_goodput(c);
  c.stragglers = {0.5 / kHour, kHour, 1024, [](long long) { return 1.25; }};
  const GoodputResult with = simulate_goodput(c);
  EXPECT_EQ(with.interruptions_by_cause, before.interruptions_by_cause);
  EXPECT_EQ(with.mttr_s, before.mttr_s);
  EXPECT_LT(with.ettr.mean, before.ettr.mean);
  EXPECT_GT(with.time.straggler_s, 0);
  // Time still adds up to the run.
  const TimeAccount& t = with.time;
  EXPECT_NEAR(t.useful_s + t.straggler_s + t.checkpoint_s + t.lost_work_s + t.detection_s + t.waiting_s + t.switchover_s +
                  t.restart_s,
              c.duration_s, 1e-6 * c.duration_s);
}

TEST(GoodputStragglers, MeanLostTimeWithinThreeStandardErrorsOfTheClosedForm) {
  GoodputConfig c = config();  // no failures
  const long long gpus = 1000;
  const double rate_per_gpu_hour = 1e-5;  // 0.01 events/h over the job: overlaps (1 % of events) are rare
  const double duration = kHour;
  // Half the GPUs' stages slow the step by 1.25, the other half by 1.1 (a lighter stage).
  c.stragglers = {rate_per_gpu_hour * gpus / kHour, duration, gpus, [](long long gpu) { return gpu < 500 ? 1.25 : 1.1; }};
  const GoodputResult r = simulate_goodput(c);
  const double events = rate_per_gpu_hour * gpus * c.duration_s / kHour;  // 7.2 per run
  const double loss_a = 1 - 1 / 1.25, loss_b = 1 - 1 / 1.1;
  const double training_share = c.interval_s / (c.interval_s + c.blocking_s);  // checkpoint time is not slowed
  const double expected = events * duration * 0.5 * (loss_a + loss_b) * training_share;
  // A compound Poisson sum: variance = rate·D·E[(duration·loss)²].
  const double sd = std::sqrt(events * duration * duration * 0.5 * (loss_a * loss_a + loss_b * loss_b));
  const double se = sd / std::sqrt(c.runs);
  EXPECT_NEAR(r.straggler_events, events, 3 * std::sqrt(events / c.runs));
  EXPECT_LT(std::abs(r.time.straggler_s - expected), 3 * se)
      << "simulated " << r.time.straggler_s << " s, closed form " << expected << " s, se " << se;
  EXPECT_NEAR(r.ettr.mean, (c.duration_s * training_share - r.time.straggler_s) / c.duration_s, 1e-3);
}

TEST(GoodputStragglers, OverlappingEventsCountTheSlowestOnce) {
  // Events far longer than the run: the whole run is throttled by the slowest effect, never by
  // the sum of overlapping ones, so at most (1 − 1/effect) of the training is lost.
  GoodputConfig c = config();
  c.runs = 20;
  c.stragglers = {10.0 / kHour, 1000 * kDay, 8, [](long long) { return 2.0; }};
  const GoodputResult r = simulate_goodput(c);
  const double training = c.duration_s * c.interval_s / (c.interval_s + c.blocking_s);
  EXPECT_LT(r.time.straggler_s, 0.5 * training + 1);
  EXPECT_GT(r.time.straggler_s, 0.49 * training);
}

TEST(GoodputStragglers, RejectsANegativeRateOrNoDuration) {
  GoodputConfig c = config();
  c.runs = 1;
  c.stragglers = {-1.0, kHour, 8, [](long long) { return 1.5; }};
  EXPECT_THROW((void)simulate_goodput(c), InputError);
  c.stragglers = {1.0 / kHour, 0.0, 8, [](long long) { return 1.5; }};
  EXPECT_THROW((void)simulate_goodput(c), InputError);
}

}  // namespace
}  // namespace ctwin::analysis
