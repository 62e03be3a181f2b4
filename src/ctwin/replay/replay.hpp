#pragma once
// Event-level replay of one training step of one representative pipeline on the engine.
//
// Symmetry: the DP replicas and TP ranks of a stage do the same work at the same time, so one
// rank per pipeline stage is simulated; their collectives' times already account for the whole
// group (comm_groups.hpp). Each rank has streams (compute, tp, pp, dp, cp, ep); an op starts
// when its stream is free and what it waits for is done, and each op's end is an engine event.
// Dependencies between ranks: the forward of (chunk c, micro-batch m) on rank r starts after
// rank r − 1's forward of (c, m) and its activation send (rank 0 chunk c waits for rank pp − 1
// chunk c − 1); backward mirrors it. Sends run on the pp stream and, without overlap.pp_p2p,
// hold the sender's compute until they arrive. After its last backward and its
// Join::kStepEnd communication, each rank runs its optimizer ops. The step ends when every
// rank is done.

#include <cstdint>
#include <vector>

#include "ctwin/core/units.hpp"
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
  std::vector<RankTimeline> ranks;  ///< one per pipeline stage
  std::uint64_t events = 0;
};

/// Replays `work` with the per-rank `order` (pipeline_order for the same pp, chunks and
/// micro-batches). `pp_overlap`: sends do not hold the sender's compute.
[[nodiscard]] ReplayResult replay_step(const StepWork& work, const std::vector<std::vector<PipelineTask>>& order,
                                       bool pp_overlap);

}  // namespace ctwin::replay
