#include "ctwin/calibration/gemm_fit.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <optional>
#include <set>

#include "ctwin/compute/gemm_limits.hpp"
#include "ctwin/compute/gemm_model.hpp"
#include "ctwin/compute/gemm_roofline.hpp"
#include "ctwin/core/error.hpp"

namespace ctwin::calibration {
namespace {

using compute::Dtype;

std::size_t position(const std::vector<std::int64_t>& axis, std::int64_t value) {
  return static_cast<std::size_t>(std::lower_bound(axis.begin(), axis.end(), value) - axis.begin());
}

std::vector<std::int64_t> axis_of(const std::vector<const GemmMeasurement*>& rows, std::int64_t compute::GemmShape::*size) {
  std::set<std::int64_t> values;
  for (const auto* row : rows) values.insert(row->shape.*size);
  return {values.begin(), values.end()};
}

// Fills unknown grid points round by round from the previous round's known neighbours, so the
// result does not depend on the order points are visited in.
void fill_holes(compute::EfficiencyGrid& grid, std::vector<std::optional<double>>& log_eff) {
  const std::size_t sizes[] = {grid.m.size(), grid.n.size(), grid.k.size()};
  while (std::any_of(log_eff.begin(), log_eff.end(), [](const auto& v) { return !v; })) {
    std::vector<std::optional<double>> next = log_eff;
    for (std::size_t i = 0; i < sizes[0]; ++i) {
      for (std::size_t j = 0; j < sizes[1]; ++j) {
        for (std::size_t l = 0; l < sizes[2]; ++l) {
          if (log_eff[grid.index(i, j, l)]) continue;
          double sum = 0;
          int count = 0;
          const std::size_t at[] = {i, j, l};
          for (int axis = 0; axis < 3; ++axis) {
            for (const int step : {-1, 1}) {
              std::size_t q[] = {at[0], at[1], at[2]};
              if ((step < 0 && q[axis] == 0) || (step > 0 && q[axis] + 1 == sizes[axis])) continue;
              q[axis] = static_cast<std::size_t>(static_cast<std::int64_t>(q[axis]) + step);
              if (const auto& value = log_eff[grid.index(q[0], q[1], q[2])]) {
                sum += *value;
                ++count;
              }
            }
          }
          if (count > 0) next[grid.index(i, j, l)] = sum / count;
        }
      }
    }
    log_eff = std::move(next);
  }
}

// First pass: a hole with measured points on both sides along an axis gets the linear
// interpolation (in log size) between the nearest two; estimates from several axes are averaged
// with weights favouring short spans. Holes no axis brackets are left to fill_holes.
void interpolate_bracketed(const compute::EfficiencyGrid& grid, std::vector<std::optional<double>>& log_eff) {
  const std::vector<std::int64_t>* axes[] = {&grid.m, &grid.n, &grid.k};
  const std::vector<std::optional<double>> measured = log_eff;
  for (std::size_t i = 0; i < grid.m.size(); ++i) {
    for (std::size_t j = 0; j < grid.n.size(); ++j) {
      for (std::size_t l = 0; l < grid.k.size(); ++l) {
        if (measured[grid.index(i, j, l)]) continue;
        double weighted = 0;
        double weights = 0;
        for (int axis = 0; axis < 3; ++axis) {
          const std::size_t at[] = {i, j, l};
          auto value_at = [&](std::size_t p) {
            std::size_t q[] = {at[0], at[1], at[2]};
            q[axis] = p;
            return measured[grid.index(q[0], q[1], q[2])];
          };
          std::optional<std::size_t> lo;
          std::optional<std::size_t> hi;
          for (std::size_t p = at[axis]; p-- > 0;) {
            if (value_at(p)) { lo = p; break; }
          }
          for (std::size_t p = at[axis] + 1; p < axes[axis]->size(); ++p) {
            if (value_at(p)) { hi = p; break; }
          }
          if (!lo || !hi) continue;
          const auto x = [&](std::size_t p) { return std::log(static_cast<double>((*axes[axis])[p])); };
          const double span = x(*hi) - x(*lo);
          const double t = (x(at[axis]) - x(*lo)) / span;
          weighted += ((1 - t) * *value_at(*lo) + t * *value_at(*hi)) / (span * span);
          weights += 1 / (span * span);
        }
        if (weights > 0) log_eff[grid.index(i, j, l)] = weighted / weights;
      }
    }
  }
}

}  // namespace

compute::GemmEfficiencyTable fit_gemm_table(const compute::GpuSpec& gpu, const GemmSweep& sweep) {
  std::map<Dtype, std::vector<const GemmMeasurement*>> by_dtype;
  for (const auto& row : sweep.rows) {
    if (!(row.time_s > 0)) throw InputError(sweep.source, "line " + std::to_string(row.line), "no measured time to fit");
    if (!gpu.peak_dense.contains(row.shape.dtype)) {
      throw InputError(sweep.source, "line " + std::to_string(row.line),
                       gpu.name + " has no " + compute::dtype_name(row.shape.dtype) + " rate in its profile");
    }
    if (const auto problem = compute::gemm_shape_problem(gpu, row.shape)) {
      throw InputError(sweep.source, "line " + std::to_string(row.line), *problem);
    }
    // A kernel faster than the tensor cores' peak is a mistyped time or unit (or the wrong
    // GPU profile); fitting it would give an efficiency above 100% and MFUs above 100% after.
    const double achieved = row.shape.flops().count() / row.time_s;
    const double peak = gpu.peak_dense.at(row.shape.dtype).per_second();
    if (achieved > peak) {
      char text[200];
      std::snprintf(text, sizeof text, "%lldx%lldx%lld %s timed at %g us is %.4g TFLOP/s, %.3gx %s's peak %.4g TFLOP/s",
                    static_cast<long long>(row.shape.m), static_cast<long long>(row.shape.n),
                    static_cast<long long>(row.shape.k), compute::dtype_name(row.shape.dtype).c_str(),
                    row.time_s * 1e6, achieved * 1e-12, achieved / peak, gpu.name.c_str(), peak * 1e-12);
      throw InputError(sweep.source, "line " + std::to_string(row.line),
                       std::string(text) + ": an efficiency above 100% is impossible");
    }
    by_dtype[row.shape.dtype].push_back(&row);
  }
  compute::GemmEfficiencyTable table;
  for (const auto& [dtype, rows] : by_dtype) {
    compute::EfficiencyGrid grid;
    grid.m = axis_of(rows, &compute::GemmShape::m);
    grid.n = axis_of(rows, &compute::GemmShape::n);
    grid.k = axis_of(rows, &compute::GemmShape::k);
    grid.measurements = static_cast<std::int64_t>(rows.size());
    const std::size_t points = grid.m.size() * grid.n.size() * grid.k.size();
    // The table is the full grid of distinct M, N and K: a sweep of scattered shapes would
    // make it cubic in their number (1,000 shapes, 10^9 points).
    constexpr std::size_t kMaxPoints = std::size_t{1} << 22;
    if (points > kMaxPoints) {
      throw InputError(sweep.source, "", std::to_string(grid.m.size()) + " distinct M x " + std::to_string(grid.n.size()) +
                                             " N x " + std::to_string(grid.k.size()) + " K for " +
                                             compute::dtype_name(dtype) + " make a grid of more than 2^22 points: "
                                             "measure a grid of shapes, not scattered ones");
    }
    std::vector<double> sum(points, 0);
    std::vector<int> count(points, 0);
    for (const auto* row : rows) {
      const std::size_t at =
          grid.index(position(grid.m, row->shape.m), position(grid.n, row->shape.n), position(grid.k, row->shape.k));
      const double ideal = compute::ideal_gemm_roofline(gpu, row->shape).time.seconds();
      sum[at] += std::log(ideal / row->time_s);
      ++count[at];
    }
    std::vector<std::optional<double>> log_eff(points);
    for (std::size_t i = 0; i < points; ++i) {
      if (count[i] > 0) log_eff[i] = sum[i] / count[i];
    }
    interpolate_bracketed(grid, log_eff);
    fill_holes(grid, log_eff);
    grid.efficiency.reserve(points);
    for (const auto& value : log_eff) grid.efficiency.push_back(std::exp(*value));
    table.set(dtype, std::move(grid));
  }
  return table;
}

GemmErrorReport gemm_errors(const compute::GpuSpec& gpu, const GemmSweep& sweep) {
  std::vector<double> all;
  std::map<Dtype, std::vector<double>> per_dtype;
  std::map<Dtype, std::vector<double>> large;
  for (const auto& row : sweep.rows) {
    if (!(row.time_s > 0)) throw InputError(sweep.source, "line " + std::to_string(row.line), "no measured time to compare with");
    if (const auto problem = compute::gemm_shape_problem(gpu, row.shape)) {
      throw InputError(sweep.source, "line " + std::to_string(row.line), *problem);
    }
    const double predicted = compute::estimate_gemm(gpu, row.shape).time.seconds();
    const double error = std::fabs(predicted / row.time_s - 1);
    all.push_back(error);
    per_dtype[row.shape.dtype].push_back(error);
    const double volume = static_cast<double>(row.shape.m) * static_cast<double>(row.shape.n) * static_cast<double>(row.shape.k);
    if (volume >= kLargeGemmVolume) large[row.shape.dtype].push_back(error);
  }
  GemmErrorReport report;
  report.overall = error_stats(all);
  for (auto& [dtype, errors] : per_dtype) report.per_dtype[dtype] = error_stats(std::move(errors));
  for (auto& [dtype, errors] : large) report.large_per_dtype[dtype] = error_stats(std::move(errors));
  return report;
}

}  // namespace ctwin::calibration
