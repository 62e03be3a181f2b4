#include "ctwin/network/max_min_solver.hpp"

#include <algorithm>

#include "ctwin/core/error.hpp"

namespace ctwin::network {
namespace {

// Min-heap on (share, link): ties break on the link index so runs are reproducible. A functor,
// not a function pointer, so the heap algorithms inline it.
struct Worse {
  template <typename Share>
  bool operator()(const Share& a, const Share& b) const {
    return a.share != b.share ? a.share > b.share : a.link > b.link;
  }
};

}  // namespace

void MaxMinSolver::solve(std::span<const std::uint32_t> offsets, std::span<const std::uint32_t> links,
                         std::span<const double> capacity, std::span<const double> caps, std::span<double> rates) {
  const std::size_t flow_count = rates.size();
  const std::size_t link_count = capacity.size();
  CTWIN_ASSERT(offsets.size() == flow_count + 1, "one offset per flow plus the end");

  if (links.empty()) {  // nothing shared: each flow runs at its cap
    std::copy(caps.begin(), caps.end(), rates.begin());
    return;
  }

  unfrozen_.assign(link_count, 0);
  for (std::uint32_t link : links) {
    CTWIN_ASSERT(link < link_count, "links are numbered below capacity.size()");
    ++unfrozen_[link];
  }
  remaining_.resize(link_count);
  for (std::size_t l = 0; l < link_count; ++l) remaining_[l] = std::max(0.0, capacity[l]);
  for (std::size_t f = 0; f < flow_count; ++f) CTWIN_ASSERT(caps[f] > 0, "flow caps are positive");
  frozen_.assign(flow_count, 0);
  // Small problems (the common case of an incremental re-solve) scan for the smallest share;
  // large ones keep the shares in a heap. Both take the same (share, index) minimum each
  // round and freeze its flows in index order, so they give the same rates to the bit.
  if (link_count + flow_count > scan_limit_) {
    solve_by_heap(offsets, links, caps, rates);
  } else {
    solve_by_scan(offsets, links, caps, rates);
  }
}

void MaxMinSolver::freeze(std::span<const std::uint32_t> offsets, std::span<const std::uint32_t> links,
                          std::uint32_t f, double rate, std::span<double> rates) {
  frozen_[f] = 1;
  rates[f] = rate;
  for (std::uint32_t j = offsets[f]; j < offsets[f + 1]; ++j) {
    const std::uint32_t l = links[j];
    remaining_[l] = std::max(0.0, remaining_[l] - rate);
    --unfrozen_[l];
  }
}

void MaxMinSolver::solve_by_scan(std::span<const std::uint32_t> offsets, std::span<const std::uint32_t> links,
                                 std::span<const double> caps, std::span<double> rates) {
  const auto flow_count = static_cast<std::uint32_t>(rates.size());
  const auto link_count = static_cast<std::uint32_t>(remaining_.size());
  for (std::uint32_t left = flow_count; left > 0;) {
    double best_share = 0;
    std::uint32_t best = kNone;
    for (std::uint32_t l = 0; l < link_count; ++l) {
      if (unfrozen_[l] == 0) continue;
      const double share = remaining_[l] / unfrozen_[l];
      if (best == kNone || share < best_share) best_share = share, best = l;
    }
    for (std::uint32_t f = 0; f < flow_count; ++f) {
      if (!frozen_[f] && (best == kNone || caps[f] < best_share)) best_share = caps[f], best = link_count + f;
    }
    if (best >= link_count) {
      freeze(offsets, links, best - link_count, best_share, rates);
      --left;
      continue;
    }
    // The link's flows, in index order as the heap's per-link lists hold them.
    for (std::uint32_t f = 0; f < flow_count; ++f) {
      if (frozen_[f]) continue;
      const auto first = links.begin() + offsets[f];
      const auto last = links.begin() + offsets[f + 1];
      if (std::find(first, last, best) == last) continue;
      freeze(offsets, links, f, best_share, rates);
      --left;
    }
  }
}

void MaxMinSolver::solve_by_heap(std::span<const std::uint32_t> offsets, std::span<const std::uint32_t> links,
                                 std::span<const double> caps, std::span<double> rates) {
  const std::size_t flow_count = rates.size();
  const std::size_t link_count = remaining_.size();
  // Flows of each link (CSR), in index order.
  flows_start_.assign(link_count + 1, 0);
  for (std::size_t l = 0; l < link_count; ++l) flows_start_[l + 1] = flows_start_[l] + unfrozen_[l];
  flows_of_link_.resize(links.size());
  {
    std::vector<std::uint32_t>& cursor = version_;  // reused as scratch before it holds versions
    cursor.assign(flows_start_.begin(), flows_start_.end() - 1);
    for (std::size_t f = 0; f < flow_count; ++f) {
      for (std::uint32_t i = offsets[f]; i < offsets[f + 1]; ++i) {
        flows_of_link_[cursor[links[i]]++] = static_cast<std::uint32_t>(f);
      }
    }
  }
  version_.assign(link_count, 0);
  heap_.clear();
  const auto cap_index = [&](std::size_t f) { return static_cast<std::uint32_t>(link_count + f); };
  // Shares only go stale, never get updated in place: a link's entry is valid while its
  // version matches, and each change pushes a fresh one.
  const auto freeze_and_push = [&](std::uint32_t f, double rate, std::uint32_t bottleneck) {
    freeze(offsets, links, f, rate, rates);
    for (std::uint32_t j = offsets[f]; j < offsets[f + 1]; ++j) {
      const std::uint32_t l = links[j];
      ++version_[l];
      if (unfrozen_[l] > 0 && l != bottleneck) {
        heap_.push_back({remaining_[l] / unfrozen_[l], l, version_[l]});
        std::push_heap(heap_.begin(), heap_.end(), Worse{});
      }
    }
  };

  for (std::uint32_t l = 0; l < link_count; ++l) {
    if (unfrozen_[l] > 0) heap_.push_back({remaining_[l] / unfrozen_[l], l, 0});
  }
  for (std::size_t f = 0; f < flow_count; ++f) heap_.push_back({caps[f], cap_index(f), 0});
  std::make_heap(heap_.begin(), heap_.end(), Worse{});
  while (!heap_.empty()) {
    std::pop_heap(heap_.begin(), heap_.end(), Worse{});
    const Share top = heap_.back();
    heap_.pop_back();
    if (top.link >= link_count) {
      const std::uint32_t f = top.link - static_cast<std::uint32_t>(link_count);
      if (!frozen_[f]) freeze_and_push(f, top.share, top.link);
      continue;
    }
    if (top.version != version_[top.link] || unfrozen_[top.link] == 0) continue;
    for (std::uint32_t i = flows_start_[top.link]; i < flows_start_[top.link + 1]; ++i) {
      const std::uint32_t f = flows_of_link_[i];
      if (!frozen_[f]) freeze_and_push(f, top.share, top.link);
    }
  }
}

}  // namespace ctwin::network
