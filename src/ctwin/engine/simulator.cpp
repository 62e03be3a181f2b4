#include "ctwin/engine/simulator.hpp"

#include <algorithm>

#include "ctwin/core/error.hpp"
#include "ctwin/core/interrupt.hpp"
#include "ctwin/core/progress.hpp"
#include "ctwin/core/quad_heap.hpp"

namespace ctwin::engine {

EventId Simulator::schedule_at(SimTime when, Action action) {
  CTWIN_ASSERT(when >= now_, "events cannot be scheduled in the past");
  CTWIN_ASSERT(static_cast<bool>(action), "an event needs an action");
  std::uint32_t slot = 0;
  if (free_slots_.empty()) {
    slot = static_cast<std::uint32_t>(slots_.size());
    slots_.emplace_back();
  } else {
    slot = free_slots_.back();
    free_slots_.pop_back();
  }
  const std::uint64_t sequence = next_sequence_++;
  slots_[slot].action = std::move(action);
  slots_[slot].sequence = sequence;
  if (when == now_) {
    current_.push_back(Entry{when, sequence, slot});
  } else {
    quad_heap_push(heap_, Entry{when, sequence, slot}, earlier);
  }
  ++live_;
  return {slot, sequence};
}

bool Simulator::cancel(EventId id) {
  if (id.slot >= slots_.size()) return false;
  Slot& slot = slots_[id.slot];
  if (slot.sequence != id.sequence || !slot.action) return false;
  slot.action = nullptr;
  --live_;
  return true;
}

bool Simulator::live(const Entry& entry) const {
  const Slot& slot = slots_[entry.slot];
  return slot.sequence == entry.sequence && slot.action;
}

void Simulator::release_cancelled(const Entry& entry) {
  // A slot is reusable only once its entry is gone (a later event may hold it already).
  if (slots_[entry.slot].sequence == entry.sequence) free_slots_.push_back(entry.slot);
}

void Simulator::drop_cancelled_top() {
  while (!heap_.empty() && !live(heap_.front())) {
    release_cancelled(heap_.front());
    quad_heap_pop(heap_, earlier);
  }
  while (current_head_ < current_.size() && !live(current_[current_head_])) release_cancelled(current_[current_head_++]);
  if (current_head_ == current_.size()) {
    current_.clear();
    current_head_ = 0;
  }
}

std::optional<SimTime> Simulator::next_event_time() {
  drop_cancelled_top();
  if (!current_.empty()) return now_;
  if (heap_.empty()) return std::nullopt;
  return heap_.front().time;
}

bool Simulator::step() {
  drop_cancelled_top();
  Entry top;
  if (!current_.empty() && (heap_.empty() || heap_.front().time != now_)) {
    top = current_[current_head_++];
  } else if (!heap_.empty()) {
    top = quad_heap_pop(heap_, earlier);
  } else {
    return false;
  }
  Action action = std::move(slots_[top.slot].action);
  slots_[top.slot].action = nullptr;
  free_slots_.push_back(top.slot);
  --live_;
  now_ = top.time;
  ++processed_;
  action();
  return true;
}

void Simulator::run() {
  // A flow run of a large build takes seconds to minutes: let its caller stop it.
  constexpr std::uint64_t kEventsBetweenChecks = 1 << 16;
  std::uint64_t until_check = kEventsBetweenChecks;
  while (step()) {
    if (--until_check == 0) {
      interruption_point();
      count_events(kEventsBetweenChecks);  // for a progress line; cheaper than counting each event
      until_check = kEventsBetweenChecks;
    }
  }
  count_events(kEventsBetweenChecks - until_check);
}

void Simulator::run_until(SimTime limit) {
  CTWIN_ASSERT(limit >= now_, "cannot run backwards in time");
  while (true) {
    const auto next = next_event_time();
    if (!next || *next > limit) break;
    step();
  }
  now_ = limit;
}

}  // namespace ctwin::engine
