#include "ctwin/compute/gemm_model.hpp"

#include <algorithm>

#include "ctwin/core/error.hpp"
#include "ctwin/core/limits.hpp"

namespace ctwin::compute {
namespace {

// fp16 and bf16 GEMMs run the same tensor-core instructions on 2-byte inputs at the same rate on
// every GPU with both (datasheets list one figure for the two), so a table measured in one of them
// speaks for the other when the GPU's peaks agree.
std::optional<GridEfficiency> table_efficiency(const GpuSpec& gpu, const GemmShape& shape) {
  if (!gpu.gemm_table) return std::nullopt;
  if (auto own = gpu.gemm_table->lookup(shape.dtype, shape.m, shape.n, shape.k)) return own;
  const bool half_precision = shape.dtype == Dtype::kBf16 || shape.dtype == Dtype::kFp16;
  if (!half_precision) return std::nullopt;
  const Dtype twin = shape.dtype == Dtype::kBf16 ? Dtype::kFp16 : Dtype::kBf16;
  const auto twin_peak = gpu.peak_dense.find(twin);
  if (twin_peak == gpu.peak_dense.end() || twin_peak->second.per_second() != gpu.peak(shape.dtype).per_second()) {
    return std::nullopt;
  }
  return gpu.gemm_table->lookup(twin, shape.m, shape.n, shape.k);
}

}  // namespace

GemmEstimate estimate_gemm(const GpuSpec& gpu, const GemmShape& shape) {
  if (shape.m <= 0 || shape.n <= 0 || shape.k <= 0) {
    throw InputError(gpu.name, "", "GEMM sizes must be positive, got " + std::to_string(shape.m) + "x" +
                                       std::to_string(shape.n) + "x" + std::to_string(shape.k));
  }
  GemmEstimate estimate;
  estimate.flops = shape.flops();
  estimate.roofline = ideal_gemm_roofline(gpu, shape);
  const std::optional<GridEfficiency> efficiency = table_efficiency(gpu, shape);
  if (efficiency) {
    estimate.source = efficiency->extrapolated ? GemmSource::kTableEdge : GemmSource::kTable;
    estimate.time = SimTime::from_seconds(estimate.roofline.time.seconds() / efficiency->efficiency);
  } else {
    estimate.source = GemmSource::kRoofline;
    estimate.time = gemm_roofline(gpu, shape, gpu.efficiency.gemm, gpu.efficiency.hbm).time;
  }
  // A kernel never takes less than a picosecond: keeps the achieved rate finite.
  estimate.time = std::max(estimate.time, SimTime::from_ps(1));
  limits::require_finite_non_negative(estimate.rate().per_second(), "GEMM rate");
  return estimate;
}

std::string gemm_source_name(GemmSource source) {
  switch (source) {
    case GemmSource::kTable:
      return "table";
    case GemmSource::kTableEdge:
      return "table-edge";
    case GemmSource::kRoofline:
      return "roofline";
  }
  return "roofline";
}

}  // namespace ctwin::compute
