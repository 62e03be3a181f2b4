#pragma once
// C[M x N] = A[M x K] * B[K x N]: the sizes every GEMM model in ctwin takes.

#include <cstdint>

#include "ctwin/compute/dtype.hpp"
#include "ctwin/core/units.hpp"

namespace ctwin::compute {

struct GemmShape {
  std::int64_t m = 0;
  std::int64_t n = 0;
  std::int64_t k = 0;
  Dtype dtype = Dtype::kBf16;

  /// 2·M·N·K: one multiply and one add per inner-product term.
  [[nodiscard]] FlopCount flops() const {
    return FlopCount(2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k));
  }
};

}  // namespace ctwin::compute
