#pragma once
// A calibrated GEMM efficiency table: per dtype, a grid over (M, N, K) of the fraction of the
// ideal roofline time (see gemm_roofline.hpp) that measured kernels achieved. Between grid
// points the efficiency is interpolated trilinearly in log M, log N, log K, on log efficiency,
// because GEMM sweeps are taken at geometric sizes and efficiency changes by factors, not steps.
// Outside the grid each coordinate is clamped to the nearest edge: the roofline still carries the
// shape's tile and wave quantization, and the efficiency measured at the edge (clocks under load,
// kernel choice at that size) predicts beyond it better than an uncalibrated default does
// (gemm_acceptance_test's extrapolation check fits on the inner sizes and judges the outer ones).

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ctwin/compute/dtype.hpp"
#include "ctwin/core/json_reader.hpp"

namespace ctwin::compute {

/// An efficiency read from a grid, and whether a coordinate had to be clamped to reach it.
struct GridEfficiency {
  double efficiency = 1;
  bool extrapolated = false;
};

/// One dtype's grid. `efficiency` is indexed [i_m][i_n][i_k], flattened with k fastest.
struct EfficiencyGrid {
  std::vector<std::int64_t> m;
  std::vector<std::int64_t> n;
  std::vector<std::int64_t> k;
  std::vector<double> efficiency;
  std::int64_t measurements = 0;  ///< how many measured shapes the grid was fitted to

  [[nodiscard]] std::size_t index(std::size_t i_m, std::size_t i_n, std::size_t i_k) const {
    return (i_m * n.size() + i_n) * k.size() + i_k;
  }
  /// The interpolated efficiency; coordinates outside the grid's range take the nearest edge.
  [[nodiscard]] GridEfficiency lookup(std::int64_t m_value, std::int64_t n_value, std::int64_t k_value) const;
};

class GemmEfficiencyTable {
 public:
  void set(Dtype dtype, EfficiencyGrid grid);
  [[nodiscard]] const EfficiencyGrid* grid(Dtype dtype) const;
  [[nodiscard]] const std::map<Dtype, EfficiencyGrid>& grids() const { return grids_; }
  /// Nothing when the table has no grid for `dtype`.
  [[nodiscard]] std::optional<GridEfficiency> lookup(Dtype dtype, std::int64_t m, std::int64_t n, std::int64_t k) const;

 private:
  std::map<Dtype, EfficiencyGrid> grids_;
};

/// Reads a "gemm_table" object: {"bf16": {"m": [...], "n": [...], "k": [...], "efficiency": [...],
/// "measurements": N}, ...}. Axes must be positive and strictly increasing, efficiencies positive
/// and one per grid point.
[[nodiscard]] GemmEfficiencyTable read_gemm_table(JsonObjectReader reader);
/// The same layout, efficiencies rounded to 5 significant digits so that files diff cleanly.
[[nodiscard]] nlohmann::json gemm_table_to_json(const GemmEfficiencyTable& table);

}  // namespace ctwin::compute
