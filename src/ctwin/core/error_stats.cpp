#include "ctwin/core/error_stats.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include <nlohmann/json.hpp>

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

nlohmann::json error_stats_json(const ErrorStats& stats, std::string_view count_key, bool with_mean) {
  nlohmann::json out{{std::string(count_key), stats.count}, {"median_abs_error", stats.median_abs}};
  if (with_mean) out["mean_abs_error"] = stats.mean_abs;
  out["max_abs_error"] = stats.max_abs;
  return out;
}

}  // namespace ctwin
