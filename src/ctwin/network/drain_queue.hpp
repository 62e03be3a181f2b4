#pragma once
// The flows' drain times, earliest first. A flow's drain time moves every time its rate is
// re-solved, so the queue holds one entry per flow and moves it in place: no stale entries to
// skip, and the heap never grows past the flows in progress. Ties go to the lower flow id,
// so runs are reproducible.

#include <cstdint>
#include <vector>

#include "ctwin/core/units.hpp"

namespace ctwin::network {

class DrainQueue {
 public:
  [[nodiscard]] bool empty() const { return heap_.empty(); }
  [[nodiscard]] std::uint32_t top() const { return heap_.front(); }
  [[nodiscard]] SimTime top_time() const { return at_[heap_.front()]; }

  /// Sets (or moves) the drain time of `flow`.
  void set(std::uint32_t flow, SimTime at);
  /// Removes `flow` if queued.
  void erase(std::uint32_t flow);

 private:
  static constexpr std::uint32_t kAbsent = ~std::uint32_t{0};

  [[nodiscard]] bool before(std::uint32_t a, std::uint32_t b) const {
    return at_[a] != at_[b] ? at_[a] < at_[b] : a < b;
  }
  void place(std::size_t index, std::uint32_t flow) {
    heap_[index] = flow;
    index_[flow] = static_cast<std::uint32_t>(index);
  }
  void sift_up(std::size_t index);
  void sift_down(std::size_t index);

  std::vector<std::uint32_t> heap_;   // flow ids
  std::vector<std::uint32_t> index_;  // per flow: its place in heap_, or kAbsent
  std::vector<SimTime> at_;           // per flow: its drain time
};

}  // namespace ctwin::network
