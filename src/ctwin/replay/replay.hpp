#pragma once
// Event-level replay of one training step on the engine.
//
// Symmetry: the DP replicas and TP ranks of a stage do the same work at the same time, so by
// default one rank per pipeline stage is simulated and its communication stands for every group
// of the stage (comm_executor.hpp); `all_ranks` simulates every rank of every stage, each
// collective starting once all members of its group have issued it (the check that the
// symmetry reduction changes nothing). Each rank has streams (compute, tp, pp, dp, cp, ep),
// each running its ops in issue order; an op starts when its stream is free and what it waits
// for is done, and ends when its kernel time has passed or the executor says its communication
// is done. Dependencies between ranks: the forward of (chunk c, micro-batch m) on stage r starts
// after stage r − 1's forward of (c, m) and its activation send (stage 0 chunk c waits for stage
// pp − 1 chunk c − 1); backward mirrors it. Sends run on the pp stream and, without
// overlap.pp_p2p, hold the sender's compute until they arrive. After its last backward and its
// Join::kStepEnd communication, each rank runs its optimizer ops. The step ends when every rank
// is done.

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "ctwin/core/units.hpp"
#include "ctwin/engine/simulator.hpp"
#include "ctwin/replay/comm_executor.hpp"
#include "ctwin/replay/op_graph.hpp"
#include "ctwin/replay/schedule.hpp"

namespace ctwin::replay {

struct BusyInterval {
  SimTime start;
  SimTime end;
  const char* name = "";
  Stream stream = Stream::kCompute;
  bool optimizer = false;
  bool forward = true;
  int chunk = 0;
  int micro_batch = -1;  ///< -1 for once-per-step ops
};

struct RankTimeline {
  std::vector<BusyInterval> busy;  ///< in start order per stream
  SimTime end;
};

struct ReplayResult {
  SimTime step_time;
  std::vector<RankTimeline> ranks;  ///< one per pipeline stage, or stage by stage every rank (all_ranks)
  std::int64_t ranks_per_stage = 1;
  std::uint64_t events = 0;
  std::uint64_t repeated_lists = 0;  ///< chunk passes replayed by shifting a recorded one (repeat_lists)
};

struct ReplayOptions {
  bool pp_overlap = true;  ///< sends do not hold the sender's compute
  bool all_ranks = false;  ///< every rank of every stage (work.stage_gpus each), not one per stage
  /// Replays a middle micro-batch's chunk pass that starts on idle streams by shifting the first
  /// one recorded for its (stage, chunk, direction): with every op taking a fixed time (the
  /// isolated executor only) it is the same integer-picosecond schedule. The step time, the
  /// breakdown and the event count stay identical; the timeline holds the same intervals, but
  /// intervals that start at the same picosecond may be listed in another order.
  bool repeat_lists = false;
};

/// One step replayed on a simulator that other steps may share (several jobs on one fabric,
/// cluster_replay.hpp): start() schedules every rank's first list; once the simulator has run
/// past the step's end (finished()), result() gives its timeline, times counted from its start.
class StepReplay {
 public:
  /// `work`, `order` and `executor` outlive the replay.
  StepReplay(const StepWork& work, const std::vector<std::vector<PipelineTask>>& order, const ReplayOptions& options,
             engine::Simulator& simulator, CommExecutor& executor);
  ~StepReplay();
  StepReplay(const StepReplay&) = delete;
  StepReplay& operator=(const StepReplay&) = delete;

  /// Starts the step at `at` (not before the simulator's now); `on_done` runs, inside the
  /// simulation, when its last rank has finished.
  void start(SimTime at, std::function<void()> on_done = {});
  [[nodiscard]] bool finished() const;
  /// Once: the timeline, moved out.
  [[nodiscard]] ReplayResult result();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Replays `work` with the per-stage `order` (pipeline_order for the same pp, chunks and
/// micro-batches) on `simulator`, communication moved by `executor` (which runs on the same
/// simulator).
[[nodiscard]] ReplayResult replay_step(const StepWork& work, const std::vector<std::vector<PipelineTask>>& order,
                                       const ReplayOptions& options, engine::Simulator& simulator,
                                       CommExecutor& executor);

/// One rank per stage, every op taking its predicted time.
[[nodiscard]] ReplayResult replay_step(const StepWork& work, const std::vector<std::vector<PipelineTask>>& order,
                                       bool pp_overlap);

}  // namespace ctwin::replay
