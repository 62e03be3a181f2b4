#pragma once
// How far predictions are from measurements, summarised the same way everywhere ctwin compares
// itself with reality (GEMM sweeps, nccl-tests logs, kernel profiles, training runs), so that a
// "median |error|" means one thing in every report.

#include <cstddef>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace ctwin {

/// Over the absolute values of a set of relative errors (predicted / measured − 1).
struct ErrorStats {
  std::size_t count = 0;
  double median_abs = 0;  ///< an even count takes the mean of the middle two
  double mean_abs = 0;
  double max_abs = 0;
};

/// Signed or absolute errors alike; all zeros with count 0 when there are none.
[[nodiscard]] ErrorStats error_stats(std::vector<double> errors);

/// {count_key: count, "median_abs_error", ("mean_abs_error",) "max_abs_error"}: reports name the
/// count by what was compared ("rows", "shapes", "count"), a stable key of each report.
[[nodiscard]] nlohmann::json error_stats_json(const ErrorStats& stats, std::string_view count_key, bool with_mean = false);

}  // namespace ctwin
