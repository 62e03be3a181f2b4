#include "ctwin/replay/replay.hpp"

#include <algorithm>
#include <array>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <tuple>
#include <utility>

#include "ctwin/core/error.hpp"
#include "ctwin/core/progress.hpp"

namespace ctwin::replay {
// Named, not anonymous: StepReplay::Impl (declared in the header) derives from it.
namespace step_replay_detail {

class Replayer {
 public:
  Replayer(const StepWork& work, const std::vector<std::vector<PipelineTask>>& order, const ReplayOptions& options,
           engine::Simulator& sim, CommExecutor& executor)
      : work_(work), order_(order), options_(options), sim_(sim), executor_(executor),
        pp_(static_cast<int>(work.stages.size())), locals_(options.all_ranks ? work.stage_gpus : 1) {
    CTWIN_ASSERT(order.size() == work.stages.size(), "one order per pipeline stage");
    CTWIN_ASSERT(locals_ >= 1, "a stage has at least one rank");
    ranks_.resize(static_cast<std::size_t>(pp_ * locals_));
    for (std::size_t id = 0; id < ranks_.size(); ++id) {
      ranks_[id].stage = static_cast<int>(static_cast<std::int64_t>(id) / locals_);
      ranks_[id].local = options.all_ranks ? static_cast<std::int64_t>(id) % locals_ : kEveryGroup;
    }
  }

  /// Schedules every rank's first list at `at`; `on_done` runs once every rank has finished.
  void start(SimTime at, std::function<void()> on_done) {
    start_ = at;
    on_done_ = std::move(on_done);
    events_before_ = sim_.events_processed();
    std::uint64_t tasks = 0;  // each rank's lists: its stage's pipeline tasks, then the optimizer step
    for (const Rank& r : ranks_) tasks += order_[static_cast<std::size_t>(r.stage)].size() + 1;
    count_tasks(tasks);
    for (int id = 0; id < static_cast<int>(ranks_.size()); ++id) {
      sim_.schedule_at(at, [this, id] {
        prefetch(id);
        try_start(id);
      });
    }
  }

  [[nodiscard]] bool finished() const { return finished_ranks_ == ranks_.size(); }

  /// The replay once the simulator ran past its end, times from its start.
  ReplayResult result() {
    ReplayResult result;
    result.ranks_per_stage = locals_;
    for (auto& r : ranks_) {
      CTWIN_ASSERT(r.finished, "every rank reaches its optimizer step (the schedule has no deadlock)");
      if (start_ > SimTime()) {
        r.timeline.end -= start_;
        for (BusyInterval& b : r.timeline.busy) {
          b.start -= start_;
          b.end -= start_;
        }
      }
      result.step_time = std::max(result.step_time, r.timeline.end);
      std::stable_sort(r.timeline.busy.begin(), r.timeline.busy.end(),
                       [](const BusyInterval& a, const BusyInterval& b) { return a.start < b.start; });
      result.ranks.push_back(std::move(r.timeline));
    }
    result.events = sim_.events_processed() - events_before_ + skipped_events_;
    result.repeated_lists = repeated_lists_;
    return result;
  }

 private:
  using Arrival = std::tuple<int, bool, int, int>;  // sending rank, forward, chunk, micro-batch
  // An op of a group, as every member names it: stage, group leader, task (forward, chunk,
  // micro-batch; after-backward ops have forward 2) and index in the op list.
  using Rendezvous = std::tuple<int, std::int64_t, int, int, int, std::size_t>;

  enum class Prefetch : char { kNone, kInFlight, kDone };

  struct Job {
    const OpNode* op = nullptr;          // null for a pipeline send
    const PipelineTask* task = nullptr;  // null for after-backward ops
    std::uint64_t list = 0;              // the rank's op list it belongs to
    std::size_t index = 0;
    int send_to = -1;                    // receiving rank of a send
    bool prefetched = false;             // an OpNode::prefetch op, issued at the step's start
  };
  struct StreamState {
    bool running = false;
    std::deque<Job> queue;
  };
  struct Rank {
    int stage = 0;
    std::int64_t local = kEveryGroup;
    std::size_t next = 0;  // index into its stage's order
    bool busy = false;
    bool finished = false;
    int blocking_sends = 0;
    std::array<StreamState, kStreams> streams;
    // The op list being issued (a task's chunk pass, or the after-backward ops).
    const PipelineTask* task = nullptr;
    std::uint64_t list = 0;
    std::vector<char> done;
    int parked_on = -1;  // the issue loop waits for this op (wait_for) ...
    std::size_t parked_at = 0;
    int now_op = -1;  // ... or for this Join::kNow op
    bool issued_all = false;
    int task_pending = 0;
    int step_pending = 0;
    // Per chunk, per op of its forward list.
    std::vector<std::vector<Prefetch>> prefetched;
    SimTime step_join;
    RankTimeline timeline;
    // The list being recorded for repeat_lists (-1: none): where it started, its first interval
    // in the timeline, and how many ops (one event each) it ran.
    int recording = -1;
    SimTime recording_start;
    std::size_t recording_from = 0;
    std::uint64_t recording_jobs = 0;
  };
  /// A middle micro-batch's chunk pass as it ran from idle streams, relative to its start.
  struct Recorded {
    enum class State : char { kUnknown, kRepeatable, kNot } state = State::kUnknown;
    bool stored = false;
    std::vector<BusyInterval> busy;  // start and end relative to the list's start
    SimTime length;
    std::uint64_t jobs = 0;
  };

  int chunks() const { return static_cast<int>(work_.stages.front().chunks.size()); }
  int rank_id(int stage, std::int64_t local) const {
    return static_cast<int>(stage * locals_ + (local == kEveryGroup ? 0 : local));
  }
  Rank& rank(int id) { return ranks_[static_cast<std::size_t>(id)]; }

  /// When the input of `task` on rank `id` is there; nullopt while it is not.
  std::optional<SimTime> input_ready(int id, const PipelineTask& t) const {
    const Rank& r = ranks_[static_cast<std::size_t>(id)];
    const int v = chunks();
    std::optional<int> from_stage;
    if (t.forward) {
      if (r.stage > 0) from_stage = r.stage - 1;
      else if (t.chunk > 0) from_stage = pp_ - 1;
    } else {
      if (r.stage < pp_ - 1) from_stage = r.stage + 1;
      else if (t.chunk < v - 1) from_stage = 0;
    }
    if (!from_stage) return SimTime();
    const int from_chunk = t.forward ? (r.stage > 0 ? t.chunk : t.chunk - 1) : (r.stage < pp_ - 1 ? t.chunk : t.chunk + 1);
    const auto it = arrived_.find(Arrival{rank_id(*from_stage, r.local), t.forward, from_chunk, t.micro_batch});
    if (it == arrived_.end()) return std::nullopt;
    return it->second;
  }

  void try_start(int id) {
    Rank& r = rank(id);
    if (r.busy || r.finished || r.blocking_sends > 0) return;
    const auto& order = order_[static_cast<std::size_t>(r.stage)];
    if (r.next == order.size()) {
      if (r.step_pending > 0) return;  // the last Join::kStepEnd op calls again
      r.busy = true;
      start_list(id, nullptr);
      return;
    }
    const PipelineTask& task = order[r.next];
    if (!input_ready(id, task)) return;  // the arrival calls again
    r.busy = true;
    start_list(id, &task);
  }

  const std::vector<OpNode>& ops_of(int stage, const PipelineTask* task) const {
    const StageWork& s = work_.stages[static_cast<std::size_t>(stage)];
    if (task == nullptr) return s.after_backward;
    const ChunkWork& chunk = s.chunks[static_cast<std::size_t>(task->chunk)];
    return task->forward ? chunk.forward : chunk.backward;
  }

  void start_list(int id, const PipelineTask* task) {
    Rank& r = rank(id);
    r.task = task;
    ++r.list;
    r.parked_on = -1;
    r.now_op = -1;
    r.issued_all = false;
    r.task_pending = 0;
    r.recording = -1;
    if (const int key = repeat_key(id, task); key >= 0) {
      Recorded& recorded = recorded_[static_cast<std::size_t>(key)];
      if (recorded.stored) {
        repeat(id, recorded);
        return;
      }
      r.recording = key;
      r.recording_start = sim_.now();
      r.recording_from = r.timeline.busy.size();
      r.recording_jobs = 0;
    }
    r.done.assign(ops_of(r.stage, task).size(), 0);
    issue(id, 0);
  }

  /// The slot of `task`'s list in recorded_ when it can be recorded or repeated now; else −1.
  int repeat_key(int id, const PipelineTask* task) {
    if (!options_.repeat_lists || options_.all_ranks || task == nullptr) return -1;
    if (task->micro_batch <= 0 || task->micro_batch >= work_.micro_batches - 1) return -1;
    const Rank& r = rank(id);
    for (int s = 0; s < kStreams; ++s) {
      if (s == static_cast<int>(Stream::kPp)) continue;  // only sends run there: no op of a list waits on them
      const StreamState& state = r.streams[static_cast<std::size_t>(s)];
      if (state.running || !state.queue.empty()) return -1;
    }
    const int key = (r.stage * chunks() + task->chunk) * 2 + (task->forward ? 1 : 0);
    if (recorded_.empty()) recorded_.resize(static_cast<std::size_t>(pp_ * chunks() * 2));
    Recorded& recorded = recorded_[static_cast<std::size_t>(key)];
    if (recorded.state == Recorded::State::kUnknown) {
      // Ops that outlive their list, touch the pp stream or are issued ahead make a pass depend on more than its start.
      recorded.state = Recorded::State::kRepeatable;
      for (const OpNode& op : ops_of(r.stage, task)) {
        if (!occurs(op, task)) continue;
        if (op.join == Join::kStepEnd || op.stream == Stream::kPp || op.prefetch) recorded.state = Recorded::State::kNot;
      }
    }
    return recorded.state == Recorded::State::kRepeatable ? key : -1;
  }

  /// Runs a recorded list again from now: its intervals shifted, one event at its end.
  void repeat(int id, const Recorded& recorded) {
    skipped_events_ += recorded.jobs - 1;
    ++repeated_lists_;
    const SimTime start = sim_.now();
    sim_.schedule_in(recorded.length, [this, id, &recorded, start] {
      Rank& r = rank(id);
      for (BusyInterval b : recorded.busy) {
        b.start += start;
        b.end += start;
        b.forward = r.task->forward;
        b.chunk = r.task->chunk;
        b.micro_batch = r.task->micro_batch;
        r.timeline.busy.push_back(b);
      }
      r.issued_all = true;
      finish_list_if_done(id);
    });
  }

  /// Keeps the list rank `id` just finished when it was recorded and left every stream idle.
  void store_recording(int id) {
    Rank& r = rank(id);
    if (r.recording < 0) return;
    Recorded& recorded = recorded_[static_cast<std::size_t>(r.recording)];
    r.recording = -1;
    for (int s = 0; s < kStreams; ++s) {
      if (s == static_cast<int>(Stream::kPp)) continue;
      const StreamState& state = r.streams[static_cast<std::size_t>(s)];
      if (state.running || !state.queue.empty()) return;
    }
    for (std::size_t i = r.recording_from; i < r.timeline.busy.size(); ++i) {
      BusyInterval b = r.timeline.busy[i];
      if (b.stream == Stream::kPp) continue;  // an earlier list's send
      b.start -= r.recording_start;
      b.end -= r.recording_start;
      recorded.busy.push_back(b);
    }
    recorded.length = sim_.now() - r.recording_start;
    recorded.jobs = r.recording_jobs;
    recorded.stored = true;
  }

  /// Issues every OpNode::prefetch op of the rank's first-micro-batch forwards, in schedule order.
  void prefetch(int id) {
    Rank& r = rank(id);
    const StageWork& stage = work_.stages[static_cast<std::size_t>(r.stage)];
    r.prefetched.assign(stage.chunks.size(), {});
    for (const PipelineTask& task : order_[static_cast<std::size_t>(r.stage)]) {
      if (!task.forward || task.micro_batch != 0) continue;
      const auto& ops = stage.chunks[static_cast<std::size_t>(task.chunk)].forward;
      auto& state = r.prefetched[static_cast<std::size_t>(task.chunk)];
      for (std::size_t index = 0; index < ops.size(); ++index) {
        const OpNode& op = ops[index];
        if (!op.prefetch || !occurs(op, &task)) continue;
        if (state.empty()) state.assign(ops.size(), Prefetch::kNone);  // only chunks that prefetch hold states
        CTWIN_ASSERT(op.join == Join::kStepEnd && op.wait_for < 0, "a prefetched op waits for nothing in its list");
        state[index] = Prefetch::kInFlight;
        ++r.step_pending;
        Job job{&op, &task, 0, index};
        job.prefetched = true;
        submit(id, job);
      }
    }
  }

  /// Whether op `index` of the list `task` runs was issued at the step's start, and how far it got.
  Prefetch prefetch_state(const Rank& r, const PipelineTask* task, std::size_t index) const {
    if (task == nullptr || !task->forward || r.prefetched.empty()) return Prefetch::kNone;
    const auto& state = r.prefetched[static_cast<std::size_t>(task->chunk)];
    return index < state.size() && task->micro_batch == 0 ? state[index] : Prefetch::kNone;
  }

  bool occurs(const OpNode& op, const PipelineTask* task) const {
    if (task == nullptr || op.occurs == Occurs::kEvery) return true;
    if (op.occurs == Occurs::kFirstMicroBatch) return task->micro_batch == 0;
    return task->micro_batch == work_.micro_batches - 1;
  }

  /// Issues ops from `index` on until one holds the issue (Join::kNow, or a wait_for not done).
  void issue(int id, std::size_t index) {
    Rank& r = rank(id);
    const auto& ops = ops_of(r.stage, r.task);
    for (; index < ops.size(); ++index) {
      const OpNode& op = ops[index];
      if (!occurs(op, r.task)) {
        r.done[index] = 1;  // nothing to wait for
        continue;
      }
      if (const Prefetch state = prefetch_state(r, r.task, index); state != Prefetch::kNone) {
        r.done[index] = state == Prefetch::kDone;  // in flight: an op waiting for it parks until it completes
        continue;
      }
      if (op.wait_for >= 0 && !r.done[static_cast<std::size_t>(op.wait_for)]) {
        r.parked_on = op.wait_for;
        r.parked_at = index;
        return;
      }
      const Job job{&op, r.task, r.list, index};
      switch (op.join) {
        case Join::kNow: r.now_op = static_cast<int>(index); break;
        case Join::kTaskEnd: ++r.task_pending; break;
        case Join::kStepEnd: ++r.step_pending; break;
      }
      ++r.recording_jobs;
      submit(id, job);
      if (op.join == Join::kNow) return;
    }
    r.issued_all = true;
    finish_list_if_done(id);
  }

  void submit(int id, const Job& job) {
    StreamState& s = rank(id).streams[static_cast<std::size_t>(job.op ? job.op->stream : Stream::kPp)];
    if (s.running) {
      s.queue.push_back(job);
    } else {
      begin(id, job);
    }
  }

  void begin(int id, const Job& job) {
    Rank& r = rank(id);
    r.streams[static_cast<std::size_t>(job.op ? job.op->stream : Stream::kPp)].running = true;
    const SimTime start = sim_.now();
    auto done = [this, id, job, start] { complete(id, job, start); };
    if (job.op == nullptr) {
      const int to = rank(job.send_to).stage;
      executor_.start_send(work_.p2p_call, work_.send_time(r.stage, to), r.stage, to, r.local, std::move(done));
      return;
    }
    const OpNode& op = *job.op;
    if (!op.comm || op.comm->group.size <= 1) {
      sim_.schedule_in(op.duration, std::move(done));
      return;
    }
    if (!options_.all_ranks) {
      executor_.start_collective(*op.comm, op.duration, r.stage, kEveryGroup, std::move(done));
      return;
    }
    // Every rank simulated: the collective starts once the last member of its group issued it.
    const std::int64_t leader = group_leader(op.comm->group, r.local);
    const Rendezvous key{r.stage, leader, job.task ? int(job.task->forward) : 2, job.task ? job.task->chunk : 0,
                         job.task ? job.task->micro_batch : 0, job.index};
    auto& waiting = rendezvous_[key];
    waiting.push_back(std::move(done));
    if (static_cast<std::int64_t>(waiting.size()) < op.comm->group.size) return;
    auto members = std::move(waiting);
    rendezvous_.erase(key);
    executor_.start_collective(*op.comm, op.duration, r.stage, leader, [members = std::move(members)] {
      for (const auto& member_done : members) member_done();
    });
  }

  void complete(int id, const Job& job, SimTime start) {
    Rank& r = rank(id);
    const bool send = job.op == nullptr;
    const bool forward = job.task == nullptr || job.task->forward;
    if (sim_.now() > start) {
      const char* name = send ? (forward ? "pp_send_activation" : "pp_send_gradient") : job.op->name;
      r.timeline.busy.push_back({start, sim_.now(), name, send ? Stream::kPp : job.op->stream,
                                 !send && job.op->optimizer, forward, job.task ? job.task->chunk : 0,
                                 job.task ? job.task->micro_batch : -1});
    }
    StreamState& s = r.streams[static_cast<std::size_t>(send ? Stream::kPp : job.op->stream)];
    s.running = false;
    if (!s.queue.empty()) {
      const Job next = s.queue.front();
      s.queue.pop_front();
      begin(id, next);
    }
    if (send) {
      arrived_[Arrival{id, job.task->forward, job.task->chunk, job.task->micro_batch}] = sim_.now();
      if (!options_.pp_overlap) --r.blocking_sends;
      try_start(job.send_to);
      try_start(id);
      return;
    }
    switch (job.op->join) {
      case Join::kStepEnd:
        --r.step_pending;
        r.step_join = std::max(r.step_join, sim_.now());
        if (r.step_pending == 0) try_start(id);
        break;
      case Join::kTaskEnd:
        --r.task_pending;
        break;
      case Join::kNow:
        break;
    }
    if (job.prefetched) {
      r.prefetched[static_cast<std::size_t>(job.task->chunk)][job.index] = Prefetch::kDone;
      if (r.task != job.task) return;  // its list has not started yet
      r.done[job.index] = 1;
      if (r.parked_on == static_cast<int>(job.index)) {
        r.parked_on = -1;
        issue(id, r.parked_at);
      }
      return;
    }
    if (job.list != r.list) return;  // a Join::kStepEnd op of an earlier list
    r.done[job.index] = 1;
    if (r.now_op == static_cast<int>(job.index)) {
      r.now_op = -1;
      issue(id, job.index + 1);
    } else if (r.parked_on == static_cast<int>(job.index)) {
      r.parked_on = -1;
      issue(id, r.parked_at);
    } else if (job.op->join == Join::kTaskEnd) {
      finish_list_if_done(id);
    }
  }

  void finish_list_if_done(int id) {
    Rank& r = rank(id);
    if (!r.issued_all || r.task_pending > 0) return;
    r.issued_all = false;
    r.busy = false;
    store_recording(id);
    count_task_done();
    if (r.task == nullptr) {
      r.finished = true;
      r.timeline.end = std::max(sim_.now(), r.step_join);
      if (++finished_ranks_ == ranks_.size() && on_done_) on_done_();
      return;
    }
    const PipelineTask& task = *r.task;
    ++r.next;
    send(id, task);
    try_start(id);
  }

  /// The activation (forward) or its gradient (backward) goes to the neighbouring virtual stage.
  void send(int id, const PipelineTask& t) {
    Rank& r = rank(id);
    const int v = chunks();
    const bool last_virtual = r.stage == pp_ - 1 && t.chunk == v - 1;
    const bool first_virtual = r.stage == 0 && t.chunk == 0;
    if ((t.forward && last_virtual) || (!t.forward && first_virtual)) return;
    const int to = t.forward ? (r.stage + 1) % pp_ : (r.stage + pp_ - 1) % pp_;
    if (!options_.pp_overlap) ++r.blocking_sends;
    Job job;
    job.task = &t;
    job.send_to = rank_id(to, r.local);
    submit(id, job);
  }

  const StepWork& work_;
  const std::vector<std::vector<PipelineTask>>& order_;
  ReplayOptions options_;
  engine::Simulator& sim_;
  CommExecutor& executor_;
  int pp_ = 1;
  std::int64_t locals_ = 1;
  std::vector<Rank> ranks_;
  std::map<Arrival, SimTime> arrived_;
  std::map<Rendezvous, std::vector<CommExecutor::Done>> rendezvous_;
  std::vector<Recorded> recorded_;  // by (stage, chunk, direction), for repeat_lists
  std::uint64_t skipped_events_ = 0;  // the events repeated lists stand for
  std::uint64_t repeated_lists_ = 0;
  SimTime start_;
  std::function<void()> on_done_;
  std::size_t finished_ranks_ = 0;
  std::uint64_t events_before_ = 0;
};

}  // namespace step_replay_detail

struct StepReplay::Impl : step_replay_detail::Replayer {
  using Replayer::Replayer;
};

StepReplay::StepReplay(const StepWork& work, const std::vector<std::vector<PipelineTask>>& order,
                       const ReplayOptions& options, engine::Simulator& simulator, CommExecutor& executor)
    : impl_(std::make_unique<Impl>(work, order, options, simulator, executor)) {}
StepReplay::~StepReplay() = default;
void StepReplay::start(SimTime at, std::function<void()> on_done) { impl_->start(at, std::move(on_done)); }
bool StepReplay::finished() const { return impl_->finished(); }
ReplayResult StepReplay::result() { return impl_->result(); }

ReplayResult replay_step(const StepWork& work, const std::vector<std::vector<PipelineTask>>& order,
                         const ReplayOptions& options, engine::Simulator& simulator, CommExecutor& executor) {
  step_replay_detail::Replayer replayer(work, order, options, simulator, executor);
  replayer.start(simulator.now(), {});
  simulator.run();
  return replayer.result();
}

ReplayResult replay_step(const StepWork& work, const std::vector<std::vector<PipelineTask>>& order, bool pp_overlap) {
  engine::Simulator simulator;
  IsolatedExecutor executor(simulator);
  ReplayOptions options;
  options.pp_overlap = pp_overlap;
  return replay_step(work, order, options, simulator, executor);
}

}  // namespace ctwin::replay
