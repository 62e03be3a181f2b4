#include "ctwin/network/max_min_solver.hpp"

#include <algorithm>

#include "ctwin/core/error.hpp"

namespace ctwin::network {
namespace {

// Min-heap on (share, link): ties break on the link index so runs are reproducible.
bool worse(const auto& a, const auto& b) { return a.share != b.share ? a.share > b.share : a.link > b.link; }

}  // namespace

MaxMinSolver::MaxMinSolver(std::size_t link_count) : local_of_link_(link_count, -1) {}

void MaxMinSolver::solve(std::span<const std::uint32_t> offsets, std::span<const fabric::LinkId> links,
                         std::span<const double> capacity_of_link, std::span<const double> caps,
                         std::span<double> rates) {
  const std::size_t flow_count = rates.size();
  CTWIN_ASSERT(offsets.size() == flow_count + 1, "one offset per flow plus the end");

  // Number the links in use and count their flows.
  touched_.clear();
  unfrozen_.clear();
  local_links_.resize(links.size());
  for (std::size_t i = 0; i < links.size(); ++i) {
    std::int32_t& local = local_of_link_[links[i]];
    if (local < 0) {
      local = static_cast<std::int32_t>(touched_.size());
      touched_.push_back(links[i]);
      unfrozen_.push_back(0);
    }
    local_links_[i] = static_cast<std::uint32_t>(local);
    ++unfrozen_[static_cast<std::size_t>(local)];
  }
  const std::size_t link_count = touched_.size();

  // Flows of each link (CSR).
  flows_start_.assign(link_count + 1, 0);
  for (std::size_t l = 0; l < link_count; ++l) flows_start_[l + 1] = flows_start_[l] + unfrozen_[l];
  flows_of_link_.resize(links.size());
  {
    std::vector<std::uint32_t>& cursor = version_;  // reused as scratch before it holds versions
    cursor.assign(flows_start_.begin(), flows_start_.end() - 1);
    for (std::size_t f = 0; f < flow_count; ++f) {
      for (std::uint32_t i = offsets[f]; i < offsets[f + 1]; ++i) {
        flows_of_link_[cursor[local_links_[i]]++] = static_cast<std::uint32_t>(f);
      }
    }
  }

  remaining_.resize(link_count);
  version_.assign(link_count, 0);
  heap_.clear();
  for (std::size_t l = 0; l < link_count; ++l) {
    remaining_[l] = std::max(0.0, capacity_of_link[touched_[l]]);
    heap_.push_back({remaining_[l] / unfrozen_[l], static_cast<std::uint32_t>(l), 0});
  }
  for (std::size_t f = 0; f < flow_count; ++f) {
    CTWIN_ASSERT(caps[f] > 0, "flow caps are positive");
    heap_.push_back({caps[f], static_cast<std::uint32_t>(link_count + f), 0});
  }
  std::make_heap(heap_.begin(), heap_.end(), worse<Share, Share>);
  frozen_.assign(flow_count, 0);

  const auto freeze = [&](std::uint32_t f, double rate, std::uint32_t bottleneck) {
    frozen_[f] = 1;
    rates[f] = rate;
    for (std::uint32_t j = offsets[f]; j < offsets[f + 1]; ++j) {
      const std::uint32_t l = local_links_[j];
      remaining_[l] = std::max(0.0, remaining_[l] - rate);
      --unfrozen_[l];
      ++version_[l];
      if (unfrozen_[l] > 0 && l != bottleneck) {
        heap_.push_back({remaining_[l] / unfrozen_[l], l, version_[l]});
        std::push_heap(heap_.begin(), heap_.end(), worse<Share, Share>);
      }
    }
  };
  while (!heap_.empty()) {
    std::pop_heap(heap_.begin(), heap_.end(), worse<Share, Share>);
    const Share top = heap_.back();
    heap_.pop_back();
    if (top.link >= link_count) {
      const std::uint32_t f = top.link - static_cast<std::uint32_t>(link_count);
      if (!frozen_[f]) freeze(f, top.share, top.link);
      continue;
    }
    if (top.version != version_[top.link] || unfrozen_[top.link] == 0) continue;
    for (std::uint32_t i = flows_start_[top.link]; i < flows_start_[top.link + 1]; ++i) {
      const std::uint32_t f = flows_of_link_[i];
      if (!frozen_[f]) freeze(f, top.share, top.link);
    }
  }
  for (fabric::LinkId id : touched_) local_of_link_[id] = -1;
}

}  // namespace ctwin::network
