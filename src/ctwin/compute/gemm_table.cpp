#include "ctwin/compute/gemm_table.hpp"

#include <cmath>
#include <cstdio>

#include "ctwin/core/error.hpp"

namespace ctwin::compute {
namespace {

// The largest GEMM efficiency a table may hold (see parse_gemm_table).
constexpr double kMaxGemmEfficiency = 100;

struct Bracket {
  std::size_t lo = 0;
  std::size_t hi = 0;
  double weight_hi = 0;  // in log space
  bool clamped = false;
};

Bracket bracket(const std::vector<std::int64_t>& axis, std::int64_t value) {
  CTWIN_ASSERT(!axis.empty(), "a read grid has non-empty axes");
  if (value <= axis.front()) return Bracket{0, 0, 0, value < axis.front()};
  if (value >= axis.back()) return Bracket{axis.size() - 1, axis.size() - 1, 0, value > axis.back()};
  std::size_t hi = 0;
  while (axis[hi] < value) ++hi;
  if (axis[hi] == value) return Bracket{hi, hi, 0};
  const std::size_t lo = hi - 1;
  const double x = std::log(static_cast<double>(value));
  const double x0 = std::log(static_cast<double>(axis[lo]));
  const double x1 = std::log(static_cast<double>(axis[hi]));
  return Bracket{lo, hi, (x - x0) / (x1 - x0)};
}

std::vector<std::int64_t> read_axis(JsonObjectReader& reader, const char* key) {
  const nlohmann::json& value = reader.required(key);
  if (!value.is_array() || value.empty()) reader.fail(key, "expected a non-empty array of sizes");
  std::vector<std::int64_t> axis;
  for (const auto& item : value) {
    if (!item.is_number_integer() || item.get<std::int64_t>() <= 0) {
      reader.fail(key, "sizes must be positive integers, got " + item.dump());
    }
    const auto size = item.get<std::int64_t>();
    if (!axis.empty() && size <= axis.back()) reader.fail(key, "sizes must be strictly increasing");
    axis.push_back(size);
  }
  return axis;
}

double round_significant(double value, int digits) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*g", digits, value);
  return std::strtod(text, nullptr);
}

}  // namespace

GridEfficiency EfficiencyGrid::lookup(std::int64_t m_value, std::int64_t n_value, std::int64_t k_value) const {
  const Bracket m_bracket = bracket(m, m_value);
  const Bracket n_bracket = bracket(n, n_value);
  const Bracket k_bracket = bracket(k, k_value);
  double log_efficiency = 0;
  for (int corner = 0; corner < 8; ++corner) {
    const bool hm = (corner & 4) != 0;
    const bool hn = (corner & 2) != 0;
    const bool hk = (corner & 1) != 0;
    const double weight = (hm ? m_bracket.weight_hi : 1 - m_bracket.weight_hi) * (hn ? n_bracket.weight_hi : 1 - n_bracket.weight_hi) *
                          (hk ? k_bracket.weight_hi : 1 - k_bracket.weight_hi);
    if (weight == 0) continue;
    const double value = efficiency[index(hm ? m_bracket.hi : m_bracket.lo, hn ? n_bracket.hi : n_bracket.lo, hk ? k_bracket.hi : k_bracket.lo)];
    log_efficiency += weight * std::log(value);
  }
  return GridEfficiency{std::exp(log_efficiency), m_bracket.clamped || n_bracket.clamped || k_bracket.clamped};
}

void GemmEfficiencyTable::set(Dtype dtype, EfficiencyGrid grid) {
  CTWIN_ASSERT(grid.efficiency.size() == grid.m.size() * grid.n.size() * grid.k.size(), "one value per grid point");
  grids_[dtype] = std::move(grid);
}

const EfficiencyGrid* GemmEfficiencyTable::grid(Dtype dtype) const {
  const auto it = grids_.find(dtype);
  return it == grids_.end() ? nullptr : &it->second;
}

std::optional<GridEfficiency> GemmEfficiencyTable::lookup(Dtype dtype, std::int64_t m, std::int64_t n,
                                                          std::int64_t k) const {
  const EfficiencyGrid* found = grid(dtype);
  if (found == nullptr) return std::nullopt;
  return found->lookup(m, n, k);
}

GemmEfficiencyTable read_gemm_table(JsonObjectReader reader) {
  GemmEfficiencyTable table;
  for (const Dtype dtype : {Dtype::kTf32, Dtype::kBf16, Dtype::kFp16, Dtype::kFp8, Dtype::kFp4}) {
    auto grid_reader = reader.optional_object(dtype_name(dtype));
    if (!grid_reader) continue;
    EfficiencyGrid grid;
    grid.m = read_axis(*grid_reader, "m");
    grid.n = read_axis(*grid_reader, "n");
    grid.k = read_axis(*grid_reader, "k");
    const nlohmann::json& values = grid_reader->required("efficiency");
    const std::size_t points = grid.m.size() * grid.n.size() * grid.k.size();
    if (!values.is_array() || values.size() != points) {
      grid_reader->fail("efficiency", "expected an array of " + std::to_string(points) + " numbers (m x n x k)");
    }
    for (const auto& value : values) {
      if (!value.is_number() || !(value.get<double>() > 0) || !std::isfinite(value.get<double>())) {
        grid_reader->fail("efficiency", "efficiencies must be positive numbers, got " + value.dump());
      }
      // Relative to the roofline, so it may pass 1 (the shipped L40S bf16 table reaches 3.09),
      // but a point the launch overhead hides could carry 1e300 unseen by the peak check
      // (gpu_spec.cpp); no fit of measurements lands a hundred times over the roofline.
      if (value.get<double>() > kMaxGemmEfficiency) {
        grid_reader->fail("efficiency", "an efficiency relative to the roofline is at most " +
                                            std::to_string(static_cast<int>(kMaxGemmEfficiency)) + ", got " + value.dump());
      }
      grid.efficiency.push_back(value.get<double>());
    }
    grid.measurements = grid_reader->integer_or("measurements", 0, std::int64_t{1} << 40, 0);
    grid_reader->finish();
    table.set(dtype, std::move(grid));
  }
  reader.finish();
  return table;
}

nlohmann::json gemm_table_to_json(const GemmEfficiencyTable& table) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [dtype, grid] : table.grids()) {
    nlohmann::json efficiency = nlohmann::json::array();
    for (double value : grid.efficiency) efficiency.push_back(round_significant(value, 5));
    out[dtype_name(dtype)] = {{"m", grid.m}, {"n", grid.n}, {"k", grid.k}, {"efficiency", efficiency},
                              {"measurements", grid.measurements}};
  }
  return out;
}

}  // namespace ctwin::compute
