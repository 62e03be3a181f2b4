#include "ctwin/compute/gemm_roofline.hpp"

#include <algorithm>
#include <cmath>

#include "ctwin/core/error.hpp"
#include "ctwin/core/int_math.hpp"

namespace ctwin::compute {

GemmRoofline gemm_roofline(const GpuSpec& gpu, const GemmShape& shape, double compute_efficiency,
                           double memory_efficiency) {
  CTWIN_ASSERT(shape.m > 0 && shape.n > 0 && shape.k > 0, "GEMM sizes are validated by the caller");
  CTWIN_ASSERT(!gpu.gemm_tiles.empty() && gpu.sm_count > 0, "a parsed GPU has tiles and SMs");
  const double rate = gpu.peak(shape.dtype).per_second() * compute_efficiency;
  const double in_bytes = dtype_bytes(shape.dtype);
  const double bytes = (static_cast<double>(shape.m) * static_cast<double>(shape.k) +
                        static_cast<double>(shape.k) * static_cast<double>(shape.n)) * in_bytes +
                       static_cast<double>(shape.m) * static_cast<double>(shape.n) * gemm_output_bytes(shape.dtype);

  GemmRoofline best;
  best.memory_s = bytes / (gpu.hbm_bandwidth.bytes_per_second() * memory_efficiency);
  best.bytes = Bytes(std::llround(bytes));
  double best_compute = 0;
  bool first = true;
  for (const TileShape& tile : gpu.gemm_tiles) {
    const std::int64_t tiles = ceil_div(shape.m, tile.m) * ceil_div(shape.n, tile.n);
    const std::int64_t waves = ceil_div(tiles, gpu.sm_count);
    const double flops = 2.0 * static_cast<double>(waves * gpu.sm_count) * static_cast<double>(tile.m * tile.n) *
                         static_cast<double>(shape.k);
    const double compute = flops / rate;
    // Ties go to the earlier tile so the choice does not depend on floating-point noise.
    if (first || compute < best_compute * (1 - 1e-12)) {
      best_compute = compute;
      best.tile = tile;
      best.tiles = tiles;
      best.waves = waves;
      first = false;
    }
  }
  best.compute_s = best_compute;
  best.time = gpu.launch_overhead + SimTime::from_seconds(std::max(best.compute_s, best.memory_s));
  return best;
}

}  // namespace ctwin::compute
