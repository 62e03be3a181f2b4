#include "ctwin/network/drain_queue.hpp"

#include <algorithm>

namespace ctwin::network {

void DrainQueue::set(std::uint32_t flow, SimTime at) {
  if (flow >= index_.size()) index_.resize(flow + 1, kAbsent);
  const Entry entry{at, flow};
  if (index_[flow] == kAbsent) {
    heap_.push_back(entry);
    sift_up(heap_.size() - 1, entry);
    return;
  }
  const std::size_t index = index_[flow];
  if (before(entry, heap_[index])) {
    sift_up(index, entry);
  } else {
    sift_down(index, entry);
  }
}

void DrainQueue::erase(std::uint32_t flow) {
  if (flow >= index_.size() || index_[flow] == kAbsent) return;
  const std::size_t index = index_[flow];
  const Entry last = heap_.back();
  heap_.pop_back();
  index_[flow] = kAbsent;
  if (last.flow == flow) return;
  // The last entry fills the hole: it may belong above it (the hole was in another branch) or
  // below it.
  if (index > 0 && before(last, heap_[(index - 1) / kArity])) {
    sift_up(index, last);
  } else {
    sift_down(index, last);
  }
}

void DrainQueue::sift_up(std::size_t index, Entry entry) {
  while (index > 0) {
    const std::size_t parent = (index - 1) / kArity;
    if (!before(entry, heap_[parent])) break;
    place(index, heap_[parent]);
    index = parent;
  }
  place(index, entry);
}

void DrainQueue::sift_down(std::size_t index, Entry entry) {
  const std::size_t size = heap_.size();
  while (true) {
    const std::size_t first = kArity * index + 1;
    if (first >= size) break;
    const std::size_t last = std::min(first + kArity, size);
    std::size_t best = first;
    for (std::size_t child = first + 1; child < last; ++child) {
      if (before(heap_[child], heap_[best])) best = child;
    }
    if (!before(heap_[best], entry)) break;
    place(index, heap_[best]);
    index = best;
  }
  place(index, entry);
}

}  // namespace ctwin::network
