#include "ctwin/replay/step_bound.hpp"

#include <gtest/gtest.h>

#include "ctwin/replay/replay.hpp"

namespace ctwin::replay {
namespace {

SimTime ps(std::int64_t value) { return SimTime::from_ps(value); }

OpNode op(const char* name, Stream stream, std::int64_t duration, Join join = Join::kNow,
          Occurs occurs = Occurs::kEvery) {
  return OpNode{name, stream, ps(duration), join, occurs};
}

// pp stages of `chunks` chunks; stage r's passes take longer with r (uneven stages).
StepWork synthetic(int pp, int chunks, std::int64_t micro_batches, bool tp, bool dp_at_end) {
  StepWork work;
  work.micro_batches = micro_batches;
  work.p2p = ps(7);
  for (int r = 0; r < pp; ++r) {
    StageWork stage;
    for (int c = 0; c < chunks; ++c) {
      ChunkWork chunk;
      chunk.forward.push_back(op("f", Stream::kCompute, 100 + 10 * r));
      if (tp) chunk.forward.push_back(op("tp", Stream::kTp, 15));
      chunk.forward.push_back(op("f2", Stream::kCompute, 40));
      chunk.backward.push_back(op("b", Stream::kCompute, 180 + 5 * c));
      if (tp) {
        // Overlapped with the next kernel, waited for by the one after it.
        chunk.backward.push_back(op("tp", Stream::kTp, 30, Join::kTaskEnd));
        chunk.backward.push_back(op("b2", Stream::kCompute, 20));
        chunk.backward.back().wait_for = 1;
      }
      if (dp_at_end) chunk.backward.push_back(op("dp", Stream::kDp, 500, Join::kStepEnd, Occurs::kLastMicroBatch));
      stage.chunks.push_back(chunk);
    }
    stage.after_backward.push_back(op("adam", Stream::kCompute, 60));
    stage.after_backward.back().optimizer = true;
    work.stages.push_back(stage);
  }
  return work;
}

SimTime replayed(const StepWork& work, workload::PipelineSchedule schedule, bool pp_overlap) {
  const auto order = pipeline_order(schedule, static_cast<int>(work.stages.size()),
                                    static_cast<int>(work.stages.front().chunks.size()),
                                    static_cast<int>(work.micro_batches));
  return replay_step(work, order, pp_overlap).step_time;
}

SimTime bounded(const StepWork& work, workload::PipelineSchedule schedule, bool pp_overlap) {
  const auto order = pipeline_order(schedule, static_cast<int>(work.stages.size()),
                                    static_cast<int>(work.stages.front().chunks.size()),
                                    static_cast<int>(work.micro_batches));
  return step_time_lower_bound(work, order, pp_overlap);
}

// Limit: where nothing contends (no stream is busy with an earlier list when a list needs it, no
// send waits behind another), the constraints the bound keeps are the replay's, so the bound is
// the replayed step time to the picosecond: compute only, a TP collective held for (kNow) or
// overlapped (kTaskEnd, wait_for), blocking and overlapped sends, 1F1B, interleaved and GPipe.
TEST(StepBound, EqualsTheReplayWhereNothingContends) {
  using workload::PipelineSchedule;
  struct Case {
    int pp, chunks;
    std::int64_t micro_batches;
    bool tp, dp_at_end, pp_overlap;
    PipelineSchedule schedule;
  };
  const Case cases[] = {
      {1, 1, 1, false, false, true, PipelineSchedule::kOneFOneB},
      {4, 1, 8, false, false, true, PipelineSchedule::kOneFOneB},
      {4, 1, 3, true, false, true, PipelineSchedule::kOneFOneB},
      {4, 1, 8, true, true, false, PipelineSchedule::kOneFOneB},
      {3, 1, 5, true, false, true, PipelineSchedule::kGpipe},
      {4, 2, 8, false, false, true, PipelineSchedule::kInterleaved},
      {2, 3, 4, true, false, false, PipelineSchedule::kInterleaved},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(::testing::Message() << "pp " << c.pp << " chunks " << c.chunks << " m " << c.micro_batches);
    const StepWork work = synthetic(c.pp, c.chunks, c.micro_batches, c.tp, c.dp_at_end);
    EXPECT_EQ(bounded(work, c.schedule, c.pp_overlap), replayed(work, c.schedule, c.pp_overlap));
  }
}

// Where an earlier list's op holds a stream (each chunk's gradient reduce-scatter on the one DP
// stream), the bound leaves that wait out: strictly below the replay, never above.
TEST(StepBound, StaysBelowWhenStreamsContend) {
  const StepWork work = synthetic(2, 2, 4, true, true);
  const SimTime bound = bounded(work, workload::PipelineSchedule::kInterleaved, true);
  const SimTime step = replayed(work, workload::PipelineSchedule::kInterleaved, true);
  EXPECT_LT(bound, step);
  EXPECT_GT(bound, SimTime());
}

}  // namespace
}  // namespace ctwin::replay
