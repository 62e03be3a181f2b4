#pragma once
// The flows' drain times, earliest first. A flow's drain time moves every time its rate is
// re-solved, so the queue holds one entry per flow and moves it in place: no stale entries to
// skip, and the heap never grows past the flows in progress. Ties go to the lower flow id,
// so runs are reproducible: (time, flow) is a strict total order, so the flows come out in
// the same order whatever the heap's shape.
//
// Four children per node, each entry holding its own time: sifting compares siblings that
// sit side by side (a node's children share a cache line or two) and never looks a time up
// by flow id, and the heap is half as deep as a binary one. A drain removes the earliest
// flow and every solve moves a few, over tens of thousands in flight.

#include <cstdint>
#include <vector>

#include "ctwin/core/units.hpp"

namespace ctwin::network {

class DrainQueue {
 public:
  [[nodiscard]] bool empty() const { return heap_.empty(); }
  [[nodiscard]] std::uint32_t top() const { return heap_.front().flow; }
  [[nodiscard]] SimTime top_time() const { return heap_.front().at; }

  /// Sets (or moves) the drain time of `flow`.
  void set(std::uint32_t flow, SimTime at);
  /// Removes `flow` if queued.
  void erase(std::uint32_t flow);

 private:
  static constexpr std::uint32_t kAbsent = ~std::uint32_t{0};
  static constexpr std::size_t kArity = 4;  // children per node

  struct Entry {
    SimTime at;
    std::uint32_t flow;
  };

  [[nodiscard]] static bool before(const Entry& a, const Entry& b) {
    return a.at != b.at ? a.at < b.at : a.flow < b.flow;
  }
  void place(std::size_t index, const Entry& entry) {
    heap_[index] = entry;
    index_[entry.flow] = static_cast<std::uint32_t>(index);
  }
  /// Moves `entry` from the hole at `index` up or down to where it belongs.
  void sift_up(std::size_t index, Entry entry);
  void sift_down(std::size_t index, Entry entry);

  std::vector<Entry> heap_;
  std::vector<std::uint32_t> index_;  // per flow: its place in heap_, or kAbsent
};

}  // namespace ctwin::network
