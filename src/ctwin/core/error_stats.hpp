#pragma once
// How far predictions are from measurements, summarised the same way everywhere ctwin compares
// itself with reality (GEMM sweeps, nccl-tests logs, kernel profiles, training runs), so that a
// "median |error|" means one thing in every report.

#include <cstddef>
#include <vector>

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

}  // namespace ctwin
