#pragma once
// The flows' drain times, earliest first; ties go to the lower flow id, so runs are
// reproducible. A flow's drain time moves every time its rate is re-solved (four moves per
// drain on the flow bench case, over tens of thousands of flows in flight), so moving one
// must be cheap.
//
// Two parts split at a horizon: the times up to it in a small four-ary heap, the later ones in
// an unordered list. Every heap time is before every list time, so the earliest flow is the
// heap's first. Most moves give a time well past the horizon (a re-solved flow has most of
// its bytes left) and only swap one list entry for another, with no sifting; the heap stays
// small enough to sit in the first-level cache. When the heap runs empty, one pass over the
// list moves the next stretch of times into it, and the stretch's length adapts so that each
// pass brings about kRefill flows: a pass costs a few instructions per listed flow, shared by
// the kRefill drains it serves.

#include <cstdint>
#include <vector>

#include "ctwin/core/units.hpp"

namespace ctwin::network {

class DrainQueue {
 public:
  [[nodiscard]] bool empty() const { return near_.empty() && far_.empty(); }
  /// The flow that drains first: the earliest time, the lower id on ties.
  [[nodiscard]] std::uint32_t top() const { return first().flow; }
  [[nodiscard]] SimTime top_time() const { return SimTime::from_ps(first().at); }

  /// Sets (or moves) the drain time of `flow`.
  void set(std::uint32_t flow, SimTime at);
  /// Removes `flow` if queued.
  void erase(std::uint32_t flow);
  /// Removes top().
  void pop();

 private:
  static constexpr std::size_t kArity = 4;      // children per heap node
  static constexpr std::size_t kRefill = 1024;  // flows a pass over the list aims to bring in

  struct Entry {
    std::int64_t at = 0;  // ps
    std::uint32_t flow = 0;
  };
  enum class Part : std::uint8_t { kAbsent, kNear, kFar };
  struct Place {
    std::uint32_t index = 0;
    Part part = Part::kAbsent;
  };

  [[nodiscard]] static bool before(const Entry& a, const Entry& b) {
    return a.at != b.at ? a.at < b.at : a.flow < b.flow;
  }
  /// The heap's first entry, refilling the heap first if it ran empty.
  [[nodiscard]] const Entry& first() const;
  /// Moves the earliest stretch of listed times into the empty heap.
  void refill() const;
  void push_near(const Entry& entry) const;
  void place_near(std::size_t index, const Entry& entry) const {
    near_[index] = entry;
    place_[entry.flow] = {static_cast<std::uint32_t>(index), Part::kNear};
  }
  void place_far(std::size_t index, const Entry& entry) const {
    far_[index] = entry;
    place_[entry.flow] = {static_cast<std::uint32_t>(index), Part::kFar};
  }
  /// Moves `entry` from the hole at `index` up or down to where it belongs in the heap.
  void sift_up(std::size_t index, Entry entry) const;
  void sift_down(std::size_t index, Entry entry) const;
  void remove_near(std::size_t index) const;
  void remove_far(std::size_t index) const;

  // top() refills the heap when it ran empty, so the parts change under const calls; what
  // the queue holds does not.
  mutable std::vector<Entry> near_;  // four-ary heap of the times up to horizon_
  mutable std::vector<Entry> far_;   // the times after horizon_, unordered
  mutable std::vector<Place> place_;  // per flow
  mutable std::int64_t horizon_ = 0;  // ps
  mutable std::int64_t stretch_ = std::int64_t{1} << 20;  // ps a refill moves the horizon on
};

}  // namespace ctwin::network
