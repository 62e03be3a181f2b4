#pragma once
// A min-heap with four children per node, over a std::vector, as push/pop algorithms like
// std::push_heap and std::pop_heap. Half as deep as a binary heap, and a node's four children
// share a cache line or two, so popping (the common case of event and share queues) touches
// fewer lines. `before(a, b)` says a comes out first; with a strict total order the pops come
// out exactly as from any other heap.

#include <algorithm>
#include <cstddef>
#include <vector>

namespace ctwin {

namespace quad_heap_detail {

// Moves `value` down from the hole at `index` to where it belongs among heap[0, size).
template <typename T, typename Before>
void sift_down(std::vector<T>& heap, std::size_t index, std::size_t size, T value, Before before) {
  while (true) {
    const std::size_t first = 4 * index + 1;
    if (first >= size) break;
    const std::size_t last = std::min(first + 4, size);
    std::size_t best = first;
    for (std::size_t child = first + 1; child < last; ++child) {
      if (before(heap[child], heap[best])) best = child;
    }
    if (!before(heap[best], value)) break;
    heap[index] = heap[best];
    index = best;
  }
  heap[index] = value;
}

}  // namespace quad_heap_detail

template <typename T, typename Before>
void quad_heap_push(std::vector<T>& heap, T value, Before before) {
  std::size_t index = heap.size();
  heap.push_back(value);
  while (index > 0) {
    const std::size_t parent = (index - 1) / 4;
    if (!before(value, heap[parent])) break;
    heap[index] = heap[parent];
    index = parent;
  }
  heap[index] = value;
}

/// Removes the first element; the heap must not be empty.
template <typename T, typename Before>
T quad_heap_pop(std::vector<T>& heap, Before before) {
  const T top = heap.front();
  const T last = heap.back();
  heap.pop_back();
  if (!heap.empty()) quad_heap_detail::sift_down(heap, 0, heap.size(), last, before);
  return top;
}

/// Orders an arbitrary vector into a heap.
template <typename T, typename Before>
void quad_heap_make(std::vector<T>& heap, Before before) {
  if (heap.size() < 2) return;
  for (std::size_t index = (heap.size() - 2) / 4 + 1; index-- > 0;) {
    quad_heap_detail::sift_down(heap, index, heap.size(), heap[index], before);
  }
}

}  // namespace ctwin
