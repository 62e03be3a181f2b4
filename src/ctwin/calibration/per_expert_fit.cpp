#include "ctwin/calibration/per_expert_fit.hpp"

#include <algorithm>
#include <cmath>

#include "ctwin/core/error.hpp"

namespace ctwin::calibration {
namespace {

constexpr double kGemmsPerBlock = 6;
constexpr double kMostR0 = 4000, kMostUs = 100;

// The rows model is linear in r0 (dense GEMMs × r0 / R on top of the block at r0 = 0), so each row
// reduces to two numbers and the grid below costs no GEMM estimate.
struct LinearRow {
  double base_ms = 0, per_r0_ms = 0, experts = 0, measured_ms = 0;
};

LinearRow linear_row(const compute::GpuSpec& gpu, const ExpertBlockRow& row) {
  const double at0 = predict_expert_block(gpu, row, 0).rows_model_ms;
  const double at_big = predict_expert_block(gpu, row, kMostR0).rows_model_ms;
  return {at0, (at_big - at0) / kMostR0, static_cast<double>(row.local_experts), row.grouped_ms};
}

double squared_log_sum(const std::vector<LinearRow>& rows, double r0, double us) {
  double sum = 0;
  for (const auto& r : rows) {
    const double e = std::log((r.base_ms + r0 * r.per_r0_ms + kGemmsPerBlock * r.experts * us * 1e-3) / r.measured_ms);
    sum += e * e;
  }
  return sum;
}

// The best point of a (steps + 1)² grid over [r0_lo, r0_hi] × [us_lo, us_hi].
PerExpertFit grid_search(const std::vector<LinearRow>& rows, double r0_lo, double r0_hi, double us_lo, double us_hi,
                         int steps) {
  PerExpertFit best{0, 0, INFINITY};
  for (int i = 0; i <= steps; ++i) {
    const double r0 = r0_lo + (r0_hi - r0_lo) * i / steps;
    for (int j = 0; j <= steps; ++j) {
      const double us = us_lo + (us_hi - us_lo) * j / steps;
      const double loss = squared_log_sum(rows, r0, us);
      if (loss < best.fit_squared_log) best = {r0, us, loss};
    }
  }
  return best;
}

}  // namespace

double predict_grouped_with_per_expert(const compute::GpuSpec& gpu, const ExpertBlockRow& row, double half_speed_rows,
                                       double per_expert_us) {
  return predict_expert_block(gpu, row, half_speed_rows).rows_model_ms +
         kGemmsPerBlock * static_cast<double>(row.local_experts) * per_expert_us * 1e-3;
}

PerExpertFit fit_rows_and_per_expert(const compute::GpuSpec& gpu, const std::vector<ExpertBlockRow>& rows, bool per_expert) {
  if (rows.empty()) throw InputError("kernel profile", "/rows", "no expert rows to fit on");
  std::vector<LinearRow> linear;
  for (const auto& row : rows) linear.push_back(linear_row(gpu, row));
  const double us_hi = per_expert ? kMostUs : 0;
  // A coarse grid, then two finer ones around its best point: the loss is smooth and has one valley.
  PerExpertFit best = grid_search(linear, 0, kMostR0, 0, us_hi, 200);
  double r0_step = kMostR0 / 200, us_step = us_hi / 200;
  for (int pass = 0; pass < 2; ++pass) {
    best = grid_search(linear, std::max(0.0, best.half_speed_rows - r0_step), best.half_speed_rows + r0_step,
                       std::max(0.0, best.per_expert_us - us_step), best.per_expert_us + us_step, 100);
    r0_step /= 50;
    us_step /= 50;
  }
  return best;
}

}  // namespace ctwin::calibration
