#include "ctwin/compute/gemm_model.hpp"

#include <algorithm>

#include "ctwin/core/error.hpp"

namespace ctwin::compute {

GemmEstimate estimate_gemm(const GpuSpec& gpu, const GemmShape& shape) {
  if (shape.m <= 0 || shape.n <= 0 || shape.k <= 0) {
    throw InputError(gpu.name, "", "GEMM sizes must be positive, got " + std::to_string(shape.m) + "x" +
                                       std::to_string(shape.n) + "x" + std::to_string(shape.k));
  }
  GemmEstimate estimate;
  estimate.flops = shape.flops();
  estimate.roofline = ideal_gemm_roofline(gpu, shape);
  const std::optional<double> efficiency =
      gpu.gemm_table ? gpu.gemm_table->lookup(shape.dtype, shape.m, shape.n, shape.k) : std::nullopt;
  if (efficiency) {
    estimate.source = GemmSource::kTable;
    estimate.time = SimTime::from_seconds(estimate.roofline.time.seconds() / *efficiency);
  } else {
    estimate.source = GemmSource::kRoofline;
    estimate.time = gemm_roofline(gpu, shape, gpu.efficiency.gemm, gpu.efficiency.hbm).time;
  }
  // A kernel never takes less than a picosecond: keeps the achieved rate finite.
  estimate.time = std::max(estimate.time, SimTime::from_ps(1));
  return estimate;
}

std::string gemm_source_name(GemmSource source) { return source == GemmSource::kTable ? "table" : "roofline"; }

}  // namespace ctwin::compute
