#include "ctwin/replay/proportional_shares.hpp"

#include <algorithm>
#include <cmath>

namespace ctwin::replay {

std::vector<std::int64_t> proportional_shares(const std::vector<double>& weights, std::int64_t total) {
  const std::size_t n = weights.size();
  double total_weight = 0;
  for (const double w : weights) total_weight += w;
  std::vector<double> ideal(n);
  std::vector<std::int64_t> shares(n);
  std::int64_t given = 0;
  for (std::size_t i = 0; i < n; ++i) {
    ideal[i] = static_cast<double>(total) * weights[i] / total_weight;
    shares[i] = std::max<std::int64_t>(1, static_cast<std::int64_t>(std::floor(ideal[i])));
    given += shares[i];
  }
  while (given != total) {
    const bool add = given < total;
    std::size_t pick = n;
    for (std::size_t i = 0; i < n; ++i) {
      if (!add && shares[i] == 1) continue;
      const double gap = ideal[i] - static_cast<double>(shares[i]);
      if (pick == n || (add ? gap > ideal[pick] - static_cast<double>(shares[pick])
                            : gap < ideal[pick] - static_cast<double>(shares[pick]))) {
        pick = i;
      }
    }
    if (pick == n) return {};
    shares[pick] += add ? 1 : -1;
    given += add ? 1 : -1;
  }
  return shares;
}

}  // namespace ctwin::replay
