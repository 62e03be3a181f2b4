#include "ctwin/network/drain_queue.hpp"

#include <algorithm>
#include <limits>

#include "ctwin/core/error.hpp"

namespace ctwin::network {

const DrainQueue::Entry& DrainQueue::first() const {
  CTWIN_ASSERT(!empty(), "the drain queue is not empty");
  if (near_.empty()) refill();
  return near_.front();
}

void DrainQueue::refill() const {
  // Every listed time is after the horizon, so the next stretch starts there; where it catches
  // nothing (the list's times lie further out), it starts again from the earliest.
  const std::int64_t max = std::numeric_limits<std::int64_t>::max();
  while (near_.empty() && !far_.empty()) {
    horizon_ = horizon_ > max - stretch_ ? max : horizon_ + stretch_;
    std::int64_t earliest_kept = max;
    std::size_t kept = 0;
    for (const Entry& entry : far_) {
      if (entry.at <= horizon_) {
        push_near(entry);
      } else {
        earliest_kept = std::min(earliest_kept, entry.at);
        place_far(kept++, entry);
      }
    }
    const std::size_t moved = far_.size() - kept;
    far_.resize(kept);
    // Aim the next stretch at kRefill flows, assuming the times ahead are as dense.
    if (moved < kRefill / 2 && stretch_ < max / 4) stretch_ *= 2;
    if (moved > kRefill * 2 && stretch_ > 1) stretch_ /= 2;
    if (moved == 0) horizon_ = earliest_kept;
  }
}

void DrainQueue::push_near(const Entry& entry) const {
  near_.push_back(entry);
  sift_up(near_.size() - 1, entry);
}

void DrainQueue::set(std::uint32_t flow, SimTime at) {
  CTWIN_ASSERT(at >= SimTime(), "drain times are not negative");
  if (flow >= place_.size()) place_.resize(flow + 1);
  const Entry entry{at.ps(), flow};
  const Place place = place_[flow];
  if (entry.at <= horizon_) {
    if (place.part == Part::kNear) {  // moved within the heap
      if (before(entry, near_[place.index])) {
        sift_up(place.index, entry);
      } else {
        sift_down(place.index, entry);
      }
      return;
    }
    if (place.part == Part::kFar) remove_far(place.index);
    push_near(entry);
    return;
  }
  if (place.part == Part::kFar) {  // moved within the list
    place_far(place.index, entry);
    return;
  }
  if (place.part == Part::kNear) remove_near(place.index);
  far_.emplace_back();
  place_far(far_.size() - 1, entry);
}

void DrainQueue::erase(std::uint32_t flow) {
  if (flow >= place_.size()) return;
  const Place place = place_[flow];
  if (place.part == Part::kNear) remove_near(place.index);
  if (place.part == Part::kFar) remove_far(place.index);
}

void DrainQueue::pop() {
  (void)first();  // refills the heap if it ran empty
  remove_near(0);
}

void DrainQueue::remove_near(std::size_t index) const {
  place_[near_[index].flow].part = Part::kAbsent;
  const Entry last = near_.back();
  near_.pop_back();
  if (index == near_.size()) return;
  // The last entry fills the hole: it may belong above it (the hole was in another branch) or
  // below it.
  if (index > 0 && before(last, near_[(index - 1) / kArity])) {
    sift_up(index, last);
  } else {
    sift_down(index, last);
  }
}

void DrainQueue::remove_far(std::size_t index) const {
  place_[far_[index].flow].part = Part::kAbsent;
  const Entry last = far_.back();
  far_.pop_back();
  if (index < far_.size()) place_far(index, last);
}

void DrainQueue::sift_up(std::size_t index, Entry entry) const {
  while (index > 0) {
    const std::size_t parent = (index - 1) / kArity;
    if (!before(entry, near_[parent])) break;
    place_near(index, near_[parent]);
    index = parent;
  }
  place_near(index, entry);
}

void DrainQueue::sift_down(std::size_t index, Entry entry) const {
  const std::size_t size = near_.size();
  while (true) {
    const std::size_t first_child = kArity * index + 1;
    if (first_child >= size) break;
    const std::size_t last_child = std::min(first_child + kArity, size);
    std::size_t best = first_child;
    for (std::size_t child = first_child + 1; child < last_child; ++child) {
      if (before(near_[child], near_[best])) best = child;
    }
    if (!before(near_[best], entry)) break;
    place_near(index, near_[best]);
    index = best;
  }
  place_near(index, entry);
}

}  // namespace ctwin::network
