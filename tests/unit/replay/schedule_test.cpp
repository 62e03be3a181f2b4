// Pipeline schedules replayed on synthetic stages of equal time with free communication, against
// the closed forms of the pipeline bubble (Narayanan et al., SC'21, section 2.2).

#include <gtest/gtest.h>

#include <algorithm>
#include <tuple>

#include "ctwin/replay/replay.hpp"
#include "ctwin/replay/schedule.hpp"
#include "ctwin/replay/step_report.hpp"

namespace ctwin::replay {
namespace {

using namespace ctwin::literals;

// pp ranks, v chunks each; a chunk's forward takes tf/v and its backward tb/v, so that a whole
// stage takes tf and tb per micro-batch whatever v is.
StepWork equal_stages(int pp, int v, int m, SimTime tf, SimTime tb) {
  StepWork work;
  work.micro_batches = m;
  for (int r = 0; r < pp; ++r) {
    StageWork stage;
    for (int c = 0; c < v; ++c) {
      ChunkWork chunk;
      chunk.forward.push_back({"f", Stream::kCompute, SimTime::from_ps(tf.ps() / v)});
      chunk.backward.push_back({"b", Stream::kCompute, SimTime::from_ps(tb.ps() / v)});
      stage.chunks.push_back(chunk);
    }
    work.stages.push_back(stage);
  }
  return work;
}

ReplayResult run(workload::PipelineSchedule schedule, int pp, int v, int m) {
  const auto work = equal_stages(pp, v, m, 1_ms, 2_ms);
  return replay_step(work, pipeline_order(schedule, pp, v, m), true);
}

TEST(PipelineSchedule, OneFOneBBubbleIsPMinusOneOverMPlusPMinusOne) {
  for (const auto& [p, m] : {std::pair{4, 8}, {8, 8}, {2, 16}, {4, 1}, {8, 32}, {64, 512}, {32, 100}}) {
    const auto result = run(workload::PipelineSchedule::kOneFOneB, p, 1, m);
    EXPECT_EQ(result.step_time, 3_ms * (m + p - 1)) << "p " << p << " m " << m;
    const auto b = breakdown_of(result);
    EXPECT_NEAR(b.bubble_s / result.step_time.seconds(), double(p - 1) / (m + p - 1), 1e-12);
    EXPECT_NEAR(b.compute_s, 3e-3 * m, 1e-12);
  }
}

TEST(PipelineSchedule, GpipeTakesAsLongAsOneFOneBWithFreeCommunication) {
  for (const auto& [p, m] : {std::pair{4, 8}, {8, 3}, {2, 16}}) {
    EXPECT_EQ(run(workload::PipelineSchedule::kGpipe, p, 1, m).step_time,
              run(workload::PipelineSchedule::kOneFOneB, p, 1, m).step_time);
  }
}

TEST(PipelineSchedule, InterleavingDividesTheBubbleByV) {
  for (const auto& [p, v, m] : {std::tuple{4, 2, 8}, {4, 4, 16}, {8, 2, 16}, {2, 5, 4}, {4, 3, 4}}) {
    const auto result = run(workload::PipelineSchedule::kInterleaved, p, v, m);
    // m·(tf + tb) of work plus (p − 1)·(tf + tb)/v of bubble; 3 ms is divisible by every v here
    // only to within a picosecond per chunk, hence the tolerance.
    const double expected = 3e-3 * m + 3e-3 * (p - 1) / v;
    EXPECT_NEAR(result.step_time.seconds(), expected, 1e-9) << "p " << p << " v " << v << " m " << m;
    const auto b = breakdown_of(result);
    EXPECT_NEAR(b.bubble_s / result.step_time.seconds(), (double(p - 1) / v) / (m + double(p - 1) / v), 1e-6);
  }
}

TEST(PipelineSchedule, InterleavedOrderRunsEveryPassOnce) {
  const auto order = pipeline_order(workload::PipelineSchedule::kInterleaved, 4, 3, 8);
  for (const auto& rank : order) {
    ASSERT_EQ(rank.size(), 2u * 3 * 8);
    for (int c = 0; c < 3; ++c) {
      for (int mb = 0; mb < 8; ++mb) {
        for (bool f : {true, false}) {
          EXPECT_EQ(std::count(rank.begin(), rank.end(), PipelineTask{f, c, mb}), 1);
        }
      }
    }
  }
}

TEST(PipelineSchedule, BlockingSendsDelayTheSender) {
  auto work = equal_stages(2, 1, 4, 1_ms, 2_ms);
  work.p2p = 100_us;
  const auto order = pipeline_order(workload::PipelineSchedule::kOneFOneB, 2, 1, 4);
  const auto overlapped = replay_step(work, order, true);
  const auto blocking = replay_step(work, order, false);
  // Whatever the overlap, the first forward and the last backward each cross the hop once.
  EXPECT_GE(overlapped.step_time, 3_ms * 5 + 100_us * 2);
  EXPECT_GT(blocking.step_time, overlapped.step_time);
}

}  // namespace
}  // namespace ctwin::replay
