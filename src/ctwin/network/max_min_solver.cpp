#include "ctwin/network/max_min_solver.hpp"

#include <algorithm>
#include <bit>
#include <numeric>

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
  frozen_.resize(flow_count);  // cleared where read: heap solves and wide scans
  // Small problems (the common case of an incremental re-solve) scan for the smallest share;
  // large ones keep the shares in a heap. Both take the same (share, index) minimum each
  // round and freeze its flows in index order, so they give the same rates to the bit.
  if (link_count + flow_count > scan_limit_) {
    solve_by_heap(offsets, links, caps, rates);
  } else {
    solve_by_scan(offsets, links, caps, rates);
  }
}

std::uint32_t MaxMinSolver::find(std::uint32_t link) const {
  while (parent_[link] != link) {
    parent_[link] = parent_[parent_[link]];
    link = parent_[link];
  }
  return link;
}

void MaxMinSolver::unite_links_of_flows(std::span<const std::uint32_t> offsets, std::span<const std::uint32_t> links,
                                        std::size_t first, std::size_t last) {
  for (std::size_t f = first; f < last; ++f) {
    if (offsets[f] == offsets[f + 1]) continue;
    std::uint32_t root = find(links[offsets[f]]);
    for (std::uint32_t j = offsets[f] + 1; j < offsets[f + 1]; ++j) {
      std::uint32_t other = find(links[j]);
      if (other == root) continue;
      if (other < root) std::swap(root, other);
      parent_[other] = root;
    }
  }
}

void MaxMinSolver::solve_growing(std::span<const std::uint32_t> offsets, std::span<const std::uint32_t> links,
                                 std::span<const double> capacity, std::span<const double> caps,
                                 std::span<double> rates, std::size_t first_new) {
  const std::size_t flow_count = rates.size();
  const std::size_t link_count = capacity.size();
  CTWIN_ASSERT(offsets.size() == flow_count + 1, "one offset per flow plus the end");
  CTWIN_ASSERT(first_new <= flow_count, "a growing problem keeps its flows");
  if (first_new == 0) united_flows_ = 0;
  if (flow_count + link_count <= split_limit_) {
    all_resolved_ = true;
    solve(offsets, links, capacity, caps, rates);
    return;
  }
  // Parts only merge as flows join, so the union-find carries over from the last call and
  // only the flows added since need uniting.
  if (united_flows_ == 0) {
    parent_.resize(link_count);
    std::iota(parent_.begin(), parent_.end(), 0U);
  } else {
    CTWIN_ASSERT(parent_.size() <= link_count, "a growing problem keeps its links");
    for (auto l = static_cast<std::uint32_t>(parent_.size()); l < link_count; ++l) parent_.push_back(l);
  }
  unite_links_of_flows(offsets, links, united_flows_, flow_count);
  united_flows_ = flow_count;

  resolved_.assign(link_count, 0);
  for (std::size_t f = first_new; f < flow_count; ++f) {
    if (offsets[f] == offsets[f + 1]) {
      CTWIN_ASSERT(caps[f] > 0, "flow caps are positive");
      rates[f] = caps[f];  // crosses nothing shared
    } else {
      resolved_[find(links[offsets[f]])] = 1;
    }
  }
  // Number the parts being solved, then list their flows and links in index order (CSR), so
  // each part keeps the relative order a whole solve would see.
  part_of_root_.assign(link_count, kNone);
  part_flow_start_.assign(1, 0);
  for (std::size_t f = 0; f < flow_count; ++f) {
    if (offsets[f] == offsets[f + 1]) continue;
    const std::uint32_t root = find(links[offsets[f]]);
    if (!resolved_[root]) continue;
    if (part_of_root_[root] == kNone) {
      part_of_root_[root] = static_cast<std::uint32_t>(part_flow_start_.size() - 1);
      part_flow_start_.push_back(0);
    }
    ++part_flow_start_[part_of_root_[root] + 1];
  }
  const std::size_t parts = part_flow_start_.size() - 1;
  part_link_start_.assign(parts + 1, 0);
  for (std::uint32_t l = 0; l < link_count; ++l) {
    const std::uint32_t root = find(l);
    if (resolved_[root]) ++part_link_start_[part_of_root_[root] + 1];
  }
  if (parts == 1 && part_link_start_[1] == link_count) {
    // One part spans the problem: solve it as it stands, no renumbering.
    all_resolved_ = true;
    solve(offsets, links, capacity, caps, rates);
    return;
  }
  all_resolved_ = false;
  for (std::size_t p = 0; p < parts; ++p) {
    part_flow_start_[p + 1] += part_flow_start_[p];
    part_link_start_[p + 1] += part_link_start_[p];
  }
  part_flows_.resize(part_flow_start_.back());
  part_links_.resize(part_link_start_.back());
  renumbered_.resize(link_count);
  {
    std::vector<std::uint32_t>& cursor = sub_offsets_;  // scratch until the parts are built
    cursor.assign(part_flow_start_.begin(), part_flow_start_.end() - 1);
    for (std::size_t f = 0; f < flow_count; ++f) {
      if (offsets[f] == offsets[f + 1]) continue;
      const std::uint32_t root = find(links[offsets[f]]);
      if (resolved_[root]) part_flows_[cursor[part_of_root_[root]]++] = static_cast<std::uint32_t>(f);
    }
    cursor.assign(part_link_start_.begin(), part_link_start_.end() - 1);
    for (std::uint32_t l = 0; l < link_count; ++l) {
      const std::uint32_t root = find(l);
      if (!resolved_[root]) continue;
      const std::uint32_t p = part_of_root_[root];
      renumbered_[l] = cursor[p] - part_link_start_[p];
      part_links_[cursor[p]++] = l;
    }
  }
  for (std::size_t p = 0; p < parts; ++p) {
    sub_offsets_.assign(1, 0);
    sub_links_.clear();
    sub_caps_.clear();
    sub_capacity_.clear();
    for (std::uint32_t i = part_flow_start_[p]; i < part_flow_start_[p + 1]; ++i) {
      const std::uint32_t f = part_flows_[i];
      for (std::uint32_t j = offsets[f]; j < offsets[f + 1]; ++j) sub_links_.push_back(renumbered_[links[j]]);
      sub_offsets_.push_back(static_cast<std::uint32_t>(sub_links_.size()));
      sub_caps_.push_back(caps[f]);
    }
    for (std::uint32_t i = part_link_start_[p]; i < part_link_start_[p + 1]; ++i) {
      sub_capacity_.push_back(capacity[part_links_[i]]);
    }
    sub_rates_.resize(sub_caps_.size());
    solve(sub_offsets_, sub_links_, sub_capacity_, sub_caps_, sub_rates_);
    for (std::uint32_t i = part_flow_start_[p]; i < part_flow_start_[p + 1]; ++i) {
      rates[part_flows_[i]] = sub_rates_[i - part_flow_start_[p]];
    }
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
  if (flow_count > 64) {
    solve_by_scan_wide(offsets, links, caps, rates);
    return;
  }
  // Flows as bits: which cross each link, and which are not frozen yet. Walking a link's
  // unfrozen flows lowest bit first is walking them in index order, as the heap's lists do.
  flow_bits_.assign(link_count, 0);
  for (std::uint32_t f = 0; f < flow_count; ++f) {
    for (std::uint32_t j = offsets[f]; j < offsets[f + 1]; ++j) flow_bits_[links[j]] |= std::uint64_t{1} << f;
  }
  std::uint64_t unfrozen = flow_count == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << flow_count) - 1;
  while (unfrozen != 0) {
    double best_share = kNoShare;
    std::uint32_t best = smallest_share(best_share);
    for (std::uint64_t bits = unfrozen; bits != 0; bits &= bits - 1) {
      const auto f = static_cast<std::uint32_t>(std::countr_zero(bits));
      if (caps[f] < best_share) best_share = caps[f], best = link_count + f;
    }
    if (best >= link_count) {
      freeze(offsets, links, best - link_count, best_share, rates);
      unfrozen &= ~(std::uint64_t{1} << (best - link_count));
      continue;
    }
    const std::uint64_t frozen_now = flow_bits_[best] & unfrozen;
    for (std::uint64_t bits = frozen_now; bits != 0; bits &= bits - 1) {
      freeze(offsets, links, static_cast<std::uint32_t>(std::countr_zero(bits)), best_share, rates);
    }
    unfrozen &= ~frozen_now;
  }
}

void MaxMinSolver::solve_by_scan_wide(std::span<const std::uint32_t> offsets, std::span<const std::uint32_t> links,
                                      std::span<const double> caps, std::span<double> rates) {
  const auto flow_count = static_cast<std::uint32_t>(rates.size());
  std::fill(frozen_.begin(), frozen_.end(), 0);
  for (std::uint32_t left = flow_count; left > 0;) {
    double best_share = kNoShare;
    std::uint32_t best = smallest_share(best_share);
    const auto link_count = static_cast<std::uint32_t>(remaining_.size());
    for (std::uint32_t f = 0; f < flow_count; ++f) {
      if (!frozen_[f] && caps[f] < best_share) best_share = caps[f], best = link_count + f;
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

std::uint32_t MaxMinSolver::smallest_share(double& best_share) const {
  std::uint32_t best = kNone;
  for (std::uint32_t l = 0; l < remaining_.size(); ++l) {
    if (unfrozen_[l] == 0) continue;
    const double share = remaining_[l] / unfrozen_[l];
    if (share < best_share) best_share = share, best = l;
  }
  return best;
}

void MaxMinSolver::solve_by_heap(std::span<const std::uint32_t> offsets, std::span<const std::uint32_t> links,
                                 std::span<const double> caps, std::span<double> rates) {
  const std::size_t flow_count = rates.size();
  const std::size_t link_count = remaining_.size();
  std::fill(frozen_.begin(), frozen_.end(), 0);
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
