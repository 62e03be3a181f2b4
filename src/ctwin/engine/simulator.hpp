#pragma once
// The discrete-event kernel. A Simulator is a plain value: no statics and no singleton, so a
// sweep or a notebook can hold many. Events run in (time, insertion order): two events at the
// same picosecond run in the order they were scheduled, which makes every run reproducible.

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "ctwin/core/units.hpp"

namespace ctwin::engine {

/// Names a scheduled event so that it can be cancelled. Stale ids are harmless.
struct EventId {
  std::uint32_t slot = 0;
  std::uint64_t sequence = 0;
};

class Simulator {
 public:
  using Action = std::function<void()>;

  [[nodiscard]] SimTime now() const { return now_; }

  /// Runs `action` at `when`, which must not be in the past.
  EventId schedule_at(SimTime when, Action action);
  EventId schedule_in(SimTime delay, Action action) { return schedule_at(now_ + delay, std::move(action)); }
  /// Returns false if the event already ran or was cancelled.
  bool cancel(EventId id);

  /// Time of the earliest pending event, if any.
  [[nodiscard]] std::optional<SimTime> next_event_time();
  /// Runs events until none is left.
  void run();
  /// Runs events scheduled at or before `limit`, then sets the clock to `limit`.
  void run_until(SimTime limit);
  /// Runs the earliest pending event; false if there was none.
  bool step();

  [[nodiscard]] std::uint64_t events_processed() const { return processed_; }
  [[nodiscard]] std::size_t pending_events() const { return live_; }

 private:
  struct Entry {
    SimTime time;
    std::uint64_t sequence;
    std::uint32_t slot;
  };
  struct Slot {
    Action action;
    std::uint64_t sequence = 0;
  };
  static bool earlier(const Entry& a, const Entry& b) {
    return a.time != b.time ? a.time < b.time : a.sequence < b.sequence;
  }
  void drop_cancelled_top();
  [[nodiscard]] bool live(const Entry& entry) const;
  void release_cancelled(const Entry& entry);

  SimTime now_;
  std::uint64_t next_sequence_ = 1;
  std::uint64_t processed_ = 0;
  std::size_t live_ = 0;
  std::vector<Entry> heap_;
  // Events for the current instant scheduled while it runs (zero delays: a model batching the
  // changes of one instant), in sequence order. The heap holds no event for `now_` scheduled
  // since the clock got there, so every event it holds for `now_` has a lower sequence number:
  // those run first, then these in queue order, which is (time, sequence) order without
  // sifting them through the heap.
  std::vector<Entry> current_;
  std::size_t current_head_ = 0;
  std::vector<Slot> slots_;
  std::vector<std::uint32_t> free_slots_;
};

}  // namespace ctwin::engine
