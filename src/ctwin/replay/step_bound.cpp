#include "ctwin/replay/step_bound.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>

#include "ctwin/core/error.hpp"
#include "ctwin/replay/dp_shares.hpp"
#include "ctwin/replay/node_pool.hpp"

namespace ctwin::replay {
namespace {

/// The least time one op list can take from its start, when every stream is idle then.
struct ListBound {
  SimTime finish;    ///< the list is done (its kNow and kTaskEnd ops ended, every op issued)
  SimTime step_end;  ///< its Join::kStepEnd ops ended (they hold the optimizer, not the list)
};

// `first`/`last`: the pass is on the first/last micro-batch (which ops occur); `prefetch`: its
// OpNode::prefetch ops were issued at the step's start and are skipped here (as the issue loop
// skips them), which drops their constraints: the bound only gets smaller.
// `ends`: a buffer for each op's end (reused from list to list).
ListBound bound_list(const std::vector<OpNode>& ops, bool first, bool last, bool prefetch, std::vector<SimTime>& ends) {
  ListBound bound;
  SimTime issue;                        // when the issue loop reaches the next op
  std::array<SimTime, kStreams> free{};  // each stream runs its ops in issue order, one at a time
  ends.assign(ops.size(), SimTime());   // an op that does not run (or was prefetched) is "done" at 0
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const OpNode& op = ops[i];
    const bool occurs = op.occurs == Occurs::kEvery || (op.occurs == Occurs::kFirstMicroBatch && first) ||
                        (op.occurs == Occurs::kLastMicroBatch && last);
    if (!occurs || (prefetch && op.prefetch)) continue;
    // The issue loop parks on a wait_for until that op ends.
    if (op.wait_for >= 0) issue = std::max(issue, ends[static_cast<std::size_t>(op.wait_for)]);
    auto& stream = free[static_cast<std::size_t>(op.stream)];
    const SimTime start = std::max(issue, stream);
    const SimTime end = start + op.duration;
    stream = end;
    ends[i] = end;
    switch (op.join) {
      case Join::kNow:  // the issue loop waits for it
        issue = end;
        bound.finish = std::max(bound.finish, end);
        break;
      case Join::kTaskEnd: bound.finish = std::max(bound.finish, end); break;
      case Join::kStepEnd: bound.step_end = std::max(bound.step_end, end); break;
    }
  }
  bound.finish = std::max(bound.finish, issue);
  return bound;
}

}  // namespace

SimTime step_time_lower_bound(const StepWork& work, const std::vector<std::vector<PipelineTask>>& order,
                              bool pp_overlap) {
  const int pp = static_cast<int>(work.stages.size());
  CTWIN_ASSERT(pp >= 1 && order.size() == work.stages.size(), "one order per pipeline stage");
  const int v = static_cast<int>(work.stages.front().chunks.size());
  const auto m = static_cast<int>(work.micro_batches);
  // List bounds by (stage, chunk, direction, first micro-batch, last micro-batch).
  std::vector<std::optional<ListBound>> lists(static_cast<std::size_t>(pp * v * 8));
  std::vector<SimTime> ends;
  const auto list_bound = [&](int stage, const PipelineTask& t) -> const ListBound& {
    const bool first = t.micro_batch == 0, last = t.micro_batch == m - 1;
    auto& slot = lists[static_cast<std::size_t>(((stage * v + t.chunk) * 2 + (t.forward ? 1 : 0)) * 4 +
                                                (first ? 2 : 0) + (last ? 1 : 0))];
    if (!slot) {
      const ChunkWork& chunk = work.stages[static_cast<std::size_t>(stage)].chunks[static_cast<std::size_t>(t.chunk)];
      slot = bound_list(t.forward ? chunk.forward : chunk.backward, first, last, t.forward && first, ends);
    }
    return *slot;
  };
  // When each pass's output has arrived at the next virtual stage (empty: not computed yet), by
  // (stage, chunk, direction, micro-batch).
  std::vector<std::optional<SimTime>> arrived(static_cast<std::size_t>(pp) * v * 2 * m);
  const auto slot_of = [&](int stage, bool forward, int chunk, int mb) {
    return ((static_cast<std::size_t>(stage) * v + chunk) * 2 + (forward ? 1 : 0)) * m + mb;
  };
  // Where a pass's input comes from (replay.cpp's input_ready); nullopt for the first/last virtual stage.
  const auto input_of = [&](int stage, const PipelineTask& t) -> std::optional<std::size_t> {
    if (t.forward) {
      if (stage > 0) return slot_of(stage - 1, true, t.chunk, t.micro_batch);
      if (t.chunk > 0) return slot_of(pp - 1, true, t.chunk - 1, t.micro_batch);
    } else {
      if (stage < pp - 1) return slot_of(stage + 1, false, t.chunk, t.micro_batch);
      if (t.chunk < v - 1) return slot_of(0, false, t.chunk + 1, t.micro_batch);
    }
    return std::nullopt;
  };
  const auto sends = [&](int stage, const PipelineTask& t) {
    return !((t.forward && stage == pp - 1 && t.chunk == v - 1) || (!t.forward && stage == 0 && t.chunk == 0));
  };

  std::vector<std::size_t> next(static_cast<std::size_t>(pp), 0);
  std::vector<SimTime> ready(static_cast<std::size_t>(pp));      // the rank may start its next list
  std::vector<SimTime> step_join(static_cast<std::size_t>(pp));  // its kStepEnd ops have ended
  // Longest path in dependency order: advance every rank as far as its inputs are known; the
  // schedule has no deadlock (replay.cpp asserts it), so every sweep advances some rank.
  for (bool advanced = true; advanced;) {
    advanced = false;
    for (int r = 0; r < pp; ++r) {
      const auto& tasks = order[static_cast<std::size_t>(r)];
      auto& n = next[static_cast<std::size_t>(r)];
      for (; n < tasks.size(); ++n) {
        const PipelineTask& t = tasks[n];
        SimTime start = ready[static_cast<std::size_t>(r)];
        if (const auto input = input_of(r, t)) {
          if (!arrived[*input]) break;
          start = std::max(start, *arrived[*input]);
        }
        const ListBound& list = list_bound(r, t);
        const SimTime finish = start + list.finish;
        step_join[static_cast<std::size_t>(r)] = std::max(step_join[static_cast<std::size_t>(r)], start + list.step_end);
        ready[static_cast<std::size_t>(r)] = finish;
        if (sends(r, t)) {
          // The send starts when the list ends (or later, behind another on the pp stream).
          const int to = t.forward ? (r + 1) % pp : (r + pp - 1) % pp;
          const SimTime arrival = finish + work.send_time(r, to);
          arrived[slot_of(r, t.forward, t.chunk, t.micro_batch)] = arrival;
          if (!pp_overlap) ready[static_cast<std::size_t>(r)] = arrival;  // blocking sends hold the next list
        }
        advanced = true;
      }
    }
  }
  SimTime step;
  for (int r = 0; r < pp; ++r) {
    CTWIN_ASSERT(next[static_cast<std::size_t>(r)] == order[static_cast<std::size_t>(r)].size(),
                 "the schedule has no deadlock");
    const SimTime start = std::max(ready[static_cast<std::size_t>(r)], step_join[static_cast<std::size_t>(r)]);
    // The rank's end is max(its after-backward list's end, its step join): at least the former.
    const ListBound after = bound_list(work.stages[static_cast<std::size_t>(r)].after_backward, true, true, false, ends);
    step = std::max(step, start + after.finish);
  }
  return step;
}

SimTime step_time_lower_bound(const Scenario& scenario, const StepOptions& options, LayerOpsCache* layers) {
  CTWIN_ASSERT(!options.all_ranks && options.slowdowns.empty() && options.comm != CommModel::kShared &&
                   !(options.comm == CommModel::kAuto && scenario.network == network::ModelKind::kFlow),
               "the bound is for the isolated replay of one rank per stage");
  // As simulate_step replays DP shares: the slowest class's step, bounded class by class.
  if (const DpShares shares = dp_speed_shares(scenario); !shares.classes.empty()) {
    SimTime bound{};
    for (const Scenario& alike : shares.classes) bound = std::max(bound, step_time_lower_bound(alike, options, layers));
    return bound;
  }
  // simulate_step's checks and work, in its order, so that a refused step is refused alike.
  if (!scenario.calibration.empty() && !scenario.calibrated) {
    throw InputError(scenario.source, "/calibration",
                     "this command does not apply calibrations; ctwin run, scale and sweep do (api::evaluate)");
  }
  CollectiveTimes comm(scenario.cluster, scenario.network, options.free_communication, options.collective_cache,
                       scenario.tuning);
  // As prepare_step prices a placed job's groups and a pool's stages, so that the bound stays below
  // the replay; the layers' cache assumes the default placement (its key holds no placement).
  const bool placed = scenario.placement.named;
  if (placed) {
    comm.place(place_ranks(scenario), scenario.split.tp * scenario.split.cp * scenario.split.data_parallel(scenario.gpus));
  } else if (scenario.cluster.fabric.sites) {
    // As simulate_step prices them: each group on the sites its members occupy.
    comm.locate_sites(place_ranks(scenario));
  }
  StepWork work = build_step_work(scenario, comm, placed ? nullptr : layers);
  apply_pool(work, scenario, comm);
  const auto order = pipeline_order(scenario.split.schedule, static_cast<int>(scenario.split.pp),
                                    static_cast<int>(scenario.split.vpp), static_cast<int>(work.micro_batches));
  return step_time_lower_bound(work, order, scenario.overlap.pp_p2p);
}

}  // namespace ctwin::replay
