#pragma once
// Which GEMM shapes a user may ask about: each dimension within the range policy
// (core/limits.hpp) and the operands small enough for the GPU's memory. A shape beyond these
// is a typo (an extra digit, a count given as bytes), and its time would overflow
// int64 picoseconds or mean nothing.

#include <optional>
#include <string>

#include "ctwin/compute/gemm_shape.hpp"
#include "ctwin/compute/gpu_spec.hpp"

namespace ctwin::compute {

/// Why `shape` cannot run on `gpu` (a dimension outside [1, 2^24], or A, B and C together
/// larger than its HBM), or nothing when it can.
[[nodiscard]] std::optional<std::string> gemm_shape_problem(const GpuSpec& gpu, const GemmShape& shape);

}  // namespace ctwin::compute
