#include "ctwin/replay/replay.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <tuple>

#include "ctwin/core/error.hpp"
#include "ctwin/engine/simulator.hpp"

namespace ctwin::replay {
namespace {

class Replayer {
 public:
  Replayer(const StepWork& work, const std::vector<std::vector<PipelineTask>>& order, bool pp_overlap)
      : work_(work), order_(order), pp_overlap_(pp_overlap), pp_(static_cast<int>(work.stages.size())),
        ranks_(work.stages.size()) {
    CTWIN_ASSERT(order.size() == work.stages.size(), "one order per pipeline rank");
    for (auto& r : ranks_) r.stream_free.assign(kStreams, SimTime());
  }

  ReplayResult run() {
    for (int r = 0; r < pp_; ++r) sim_.schedule_at(SimTime(), [this, r] { try_start(r); });
    sim_.run();
    ReplayResult result;
    for (auto& r : ranks_) {
      CTWIN_ASSERT(r.finished, "every rank reaches its optimizer step (the schedule has no deadlock)");
      result.step_time = std::max(result.step_time, r.timeline.end);
      result.ranks.push_back(std::move(r.timeline));
    }
    result.events = sim_.events_processed();
    return result;
  }

 private:
  using Key = std::tuple<int, bool, int, int>;  // rank, forward, chunk, micro-batch

  struct Rank {
    std::size_t next = 0;          // index into its order
    bool busy = false;
    bool finished = false;
    SimTime blocked_until;         // a blocking send in flight
    std::vector<SimTime> stream_free;
    std::vector<SimTime> op_end;   // of the running op list
    SimTime task_join;             // Join::kTaskEnd ops of the running list
    SimTime step_join;             // Join::kStepEnd ops so far
    RankTimeline timeline;
  };

  int chunks() const { return static_cast<int>(work_.stages.front().chunks.size()); }

  /// When the input of `task` on rank `r` is there; nullopt while it is not.
  std::optional<SimTime> input_ready(int r, const PipelineTask& t) const {
    const int v = chunks();
    std::optional<Key> from;
    if (t.forward) {
      if (r > 0) from = Key{r - 1, true, t.chunk, t.micro_batch};
      else if (t.chunk > 0) from = Key{pp_ - 1, true, t.chunk - 1, t.micro_batch};
    } else {
      if (r < pp_ - 1) from = Key{r + 1, false, t.chunk, t.micro_batch};
      else if (t.chunk < v - 1) from = Key{0, false, t.chunk + 1, t.micro_batch};
    }
    if (!from) return SimTime();
    const auto it = arrived_.find(*from);
    if (it == arrived_.end()) return std::nullopt;
    return it->second;
  }

  void try_start(int r) {
    Rank& rank = ranks_[static_cast<std::size_t>(r)];
    if (rank.busy || rank.finished) return;
    const auto& order = order_[static_cast<std::size_t>(r)];
    if (rank.next == order.size()) {
      rank.busy = true;
      const SimTime at = std::max({sim_.now(), rank.step_join, rank.blocked_until});
      sim_.schedule_at(at, [this, r] { start_list(r, nullptr); });
      return;
    }
    const PipelineTask& task = order[rank.next];
    const auto ready = input_ready(r, task);
    if (!ready) return;  // the arrival event calls try_start again
    rank.busy = true;
    const SimTime at = std::max({sim_.now(), *ready, rank.blocked_until});
    sim_.schedule_at(at, [this, r, &task] { start_list(r, &task); });
  }

  const std::vector<OpNode>& ops_of(int r, const PipelineTask* task) const {
    const StageWork& stage = work_.stages[static_cast<std::size_t>(r)];
    if (task == nullptr) return stage.after_backward;
    const ChunkWork& chunk = stage.chunks[static_cast<std::size_t>(task->chunk)];
    return task->forward ? chunk.forward : chunk.backward;
  }

  void start_list(int r, const PipelineTask* task) {
    Rank& rank = ranks_[static_cast<std::size_t>(r)];
    rank.op_end.assign(ops_of(r, task).size(), SimTime());
    rank.task_join = sim_.now();
    issue(r, task, 0);
  }

  bool occurs(const OpNode& op, const PipelineTask* task) const {
    if (task == nullptr || op.occurs == Occurs::kEvery) return true;
    if (op.occurs == Occurs::kFirstMicroBatch) return task->micro_batch == 0;
    return task->micro_batch == work_.micro_batches - 1;
  }

  /// Issues ops from `index` on until one holds the compute; each op's end is an event.
  void issue(int r, const PipelineTask* task, std::size_t index) {
    Rank& rank = ranks_[static_cast<std::size_t>(r)];
    const auto& ops = ops_of(r, task);
    for (; index < ops.size(); ++index) {
      const OpNode& op = ops[index];
      if (!occurs(op, task)) continue;
      SimTime earliest = sim_.now();
      if (op.wait_for >= 0) earliest = std::max(earliest, rank.op_end[static_cast<std::size_t>(op.wait_for)]);
      if (earliest > sim_.now()) {
        sim_.schedule_at(earliest, [this, r, task, index] { issue(r, task, index); });
        return;
      }
      SimTime& free = rank.stream_free[static_cast<std::size_t>(op.stream)];
      const SimTime start = std::max(earliest, free);
      const SimTime end = start + op.duration;
      free = end;
      rank.op_end[index] = end;
      if (op.duration > SimTime()) {
        rank.timeline.busy.push_back({start, end, op.name, op.stream, op.optimizer, task == nullptr || task->forward,
                                      task == nullptr ? 0 : task->chunk, task == nullptr ? -1 : task->micro_batch});
      }
      switch (op.join) {
        case Join::kNow:
          sim_.schedule_at(end, [this, r, task, index] { issue(r, task, index + 1); });
          return;
        case Join::kTaskEnd: rank.task_join = std::max(rank.task_join, end); break;
        case Join::kStepEnd: rank.step_join = std::max(rank.step_join, end); break;
      }
    }
    const SimTime done = std::max(sim_.now(), rank.task_join);
    if (done > sim_.now()) {
      sim_.schedule_at(done, [this, r, task] { finish(r, task); });
    } else {
      finish(r, task);
    }
  }

  void finish(int r, const PipelineTask* task) {
    Rank& rank = ranks_[static_cast<std::size_t>(r)];
    rank.busy = false;
    if (task == nullptr) {
      rank.finished = true;
      rank.timeline.end = std::max(sim_.now(), rank.step_join);
      return;
    }
    ++rank.next;
    send(r, *task);
    try_start(r);
  }

  /// The activation (forward) or its gradient (backward) goes to the neighbouring virtual stage.
  void send(int r, const PipelineTask& t) {
    const int v = chunks();
    const bool last_virtual = r == pp_ - 1 && t.chunk == v - 1;
    const bool first_virtual = r == 0 && t.chunk == 0;
    if ((t.forward && last_virtual) || (!t.forward && first_virtual)) return;
    const int to = t.forward ? (r + 1) % pp_ : (r + pp_ - 1) % pp_;
    Rank& rank = ranks_[static_cast<std::size_t>(r)];
    SimTime& free = rank.stream_free[static_cast<std::size_t>(Stream::kPp)];
    const SimTime start = std::max(sim_.now(), free);
    const SimTime arrival = start + work_.p2p;
    free = arrival;
    if (work_.p2p > SimTime()) {
      rank.timeline.busy.push_back({start, arrival, t.forward ? "pp_send_activation" : "pp_send_gradient", Stream::kPp,
                                    false, t.forward, t.chunk, t.micro_batch});
    }
    if (!pp_overlap_) rank.blocked_until = std::max(rank.blocked_until, arrival);
    const Key key{r, t.forward, t.chunk, t.micro_batch};
    sim_.schedule_at(arrival, [this, key, to] {
      arrived_[key] = sim_.now();
      try_start(to);
    });
  }

  const StepWork& work_;
  const std::vector<std::vector<PipelineTask>>& order_;
  bool pp_overlap_ = true;
  int pp_ = 1;
  std::vector<Rank> ranks_;
  std::map<Key, SimTime> arrived_;
  engine::Simulator sim_;
};

}  // namespace

ReplayResult replay_step(const StepWork& work, const std::vector<std::vector<PipelineTask>>& order, bool pp_overlap) {
  return Replayer(work, order, pp_overlap).run();
}

}  // namespace ctwin::replay
