#include "ctwin/studies/size_front.hpp"

#include <algorithm>
#include <numeric>

namespace ctwin::api {

std::vector<FrontMark> mark_front(const std::vector<FrontPoint>& points, double tolerance) {
  std::vector<FrontMark> marks(points.size());
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (points[i].ran) order.push_back(i);
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return points[a].tokens_per_s > points[b].tokens_per_s; });
  int group = -1;
  std::size_t leader = 0;
  const auto overlaps = [&](std::size_t slower, std::size_t faster) {
    const FrontPoint& a = points[slower];
    const FrontPoint& b = points[faster];
    return a.highest > 0 && b.lowest > 0 && a.highest >= b.lowest;
  };
  for (const std::size_t i : order) {
    // Measured from the group's fastest, not the previous option, so that a slow drift of
    // small steps cannot chain the whole table into one tie.
    const bool resolved = points[i].tokens_per_s < points[leader].tokens_per_s * (1 - tolerance);
    if (group < 0 || (resolved && !overlaps(i, leader))) {
      ++group;
      leader = i;
    }
    marks[i].tie_group = group;
  }
  for (const std::size_t i : order) {
    if (!points[i].priced) continue;
    marks[i].pareto = std::none_of(order.begin(), order.end(), [&](std::size_t j) {
      if (j == i || !points[j].priced || points[j].capex > points[i].capex) return false;
      const bool tied = marks[j].tie_group == marks[i].tie_group;
      return tied ? points[j].capex < points[i].capex : points[j].tokens_per_s > points[i].tokens_per_s;
    });
  }
  return marks;
}

}  // namespace ctwin::api
