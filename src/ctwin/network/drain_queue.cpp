#include "ctwin/network/drain_queue.hpp"

namespace ctwin::network {

void DrainQueue::set(std::uint32_t flow, SimTime at) {
  if (flow >= index_.size()) {
    index_.resize(flow + 1, kAbsent);
    at_.resize(flow + 1);
  }
  const SimTime old = at_[flow];
  at_[flow] = at;
  if (index_[flow] == kAbsent) {
    heap_.push_back(flow);
    index_[flow] = static_cast<std::uint32_t>(heap_.size() - 1);
    sift_up(heap_.size() - 1);
  } else if (at < old) {
    sift_up(index_[flow]);
  } else {
    sift_down(index_[flow]);
  }
}

void DrainQueue::erase(std::uint32_t flow) {
  if (flow >= index_.size() || index_[flow] == kAbsent) return;
  const std::size_t index = index_[flow];
  const std::uint32_t last = heap_.back();
  heap_.pop_back();
  index_[flow] = kAbsent;
  if (last == flow) return;
  place(index, last);
  sift_up(index);
  sift_down(index_[last]);
}

void DrainQueue::sift_up(std::size_t index) {
  const std::uint32_t flow = heap_[index];
  while (index > 0) {
    const std::size_t parent = (index - 1) / 2;
    if (!before(flow, heap_[parent])) break;
    place(index, heap_[parent]);
    index = parent;
  }
  place(index, flow);
}

void DrainQueue::sift_down(std::size_t index) {
  const std::uint32_t flow = heap_[index];
  const std::size_t size = heap_.size();
  while (true) {
    std::size_t child = 2 * index + 1;
    if (child >= size) break;
    if (child + 1 < size && before(heap_[child + 1], heap_[child])) ++child;
    if (!before(heap_[child], flow)) break;
    place(index, heap_[child]);
    index = child;
  }
  place(index, flow);
}

}  // namespace ctwin::network
