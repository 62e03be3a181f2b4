#pragma once
// The GEMM roofline with tile and wave quantization.
//
// A GEMM library splits C into tiles of Tm x Tn, one per thread block; the blocks run in waves
// of one block per SM. A wave costs as much as a full one even when partly empty, so the
// compute time is
//     waves · SMs · (2 · Tm · Tn · K) / (peak · efficiency),   waves = ceil(ceil(M/Tm) · ceil(N/Tn) / SMs)
// and the memory time is the bytes of A, B and C over HBM bandwidth · efficiency (each operand
// read once: the best case, which large L2s nearly reach). The kernel takes the launch overhead
// plus the larger of the two. Like cuBLAS's heuristic, the model picks the tile that minimizes
// the time. (NVIDIA, "Matrix Multiplication Background User's Guide", sections on tile and wave
// quantization.)

#include <cstdint>

#include "ctwin/compute/gemm_shape.hpp"
#include "ctwin/compute/gpu_spec.hpp"
#include "ctwin/core/units.hpp"

namespace ctwin::compute {

struct GemmRoofline {
  SimTime time;            ///< launch + max(compute, memory)
  double compute_s = 0;    ///< wave-quantized tensor-core time
  double memory_s = 0;     ///< HBM time
  TileShape tile;          ///< the tile that won
  std::int64_t tiles = 0;  ///< thread blocks
  std::int64_t waves = 0;
  Bytes bytes;             ///< A + B + C traffic
  [[nodiscard]] bool memory_bound() const { return memory_s > compute_s; }
};

/// The roofline time at the given fractions of peak compute and of HBM bandwidth.
[[nodiscard]] GemmRoofline gemm_roofline(const GpuSpec& gpu, const GemmShape& shape, double compute_efficiency,
                                         double memory_efficiency);

/// The ideal roofline (both efficiencies 1): what calibrated efficiency tables are relative to.
[[nodiscard]] inline GemmRoofline ideal_gemm_roofline(const GpuSpec& gpu, const GemmShape& shape) {
  return gemm_roofline(gpu, shape, 1.0, 1.0);
}

}  // namespace ctwin::compute
