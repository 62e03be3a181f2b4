#include "ctwin/compute/gemm_limits.hpp"

#include <cstdio>

#include "ctwin/core/limits.hpp"
#include "ctwin/core/unit_parse.hpp"

namespace ctwin::compute {

std::optional<std::string> gemm_shape_problem(const GpuSpec& gpu, const GemmShape& shape) {
  for (const auto& [name, size] : {std::pair{"M", shape.m}, std::pair{"N", shape.n}, std::pair{"K", shape.k}}) {
    if (size < 1 || size > limits::kMaxGemmDim) {
      return std::string(name) + " = " + std::to_string(size) + " is outside [1, 16777216]";
    }
  }
  // Each dimension is at most 2^24, so the products fit a double exactly enough.
  const double m = static_cast<double>(shape.m);
  const double n = static_cast<double>(shape.n);
  const double k = static_cast<double>(shape.k);
  const double operands = (m * k + k * n) * dtype_bytes(shape.dtype) + m * n * gemm_output_bytes(shape.dtype);
  const double capacity = static_cast<double>(gpu.hbm_capacity.count());
  if (operands > capacity) {
    char text[160];
    std::snprintf(text, sizeof text, "A, B and C of %lldx%lldx%lld %s take %.4g GiB, more than %s's %.4g GiB of memory",
                  static_cast<long long>(shape.m), static_cast<long long>(shape.n), static_cast<long long>(shape.k),
                  dtype_name(shape.dtype).c_str(), operands / 1073741824.0, gpu.name.c_str(), capacity / 1073741824.0);
    return std::string(text);
  }
  return std::nullopt;
}

}  // namespace ctwin::compute
