#include "ctwin/core/error_stats.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace ctwin {

ErrorStats error_stats(std::vector<double> errors) {
  ErrorStats stats;
  stats.count = errors.size();
  if (errors.empty()) return stats;
  for (double& error : errors) error = std::fabs(error);
  std::sort(errors.begin(), errors.end());
  const std::size_t middle = errors.size() / 2;
  stats.median_abs = errors.size() % 2 == 1 ? errors[middle] : (errors[middle - 1] + errors[middle]) / 2;
  // Summed in ascending order: the same bytes as before for the GEMM reports that print it.
  stats.mean_abs = std::accumulate(errors.begin(), errors.end(), 0.0) / static_cast<double>(errors.size());
  stats.max_abs = errors.back();
  return stats;
}

}  // namespace ctwin
