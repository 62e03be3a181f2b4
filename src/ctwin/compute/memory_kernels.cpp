#include "ctwin/compute/memory_kernels.hpp"

#include <cmath>

#include "ctwin/core/error.hpp"

namespace ctwin::compute {
namespace {

struct Traffic {
  double per_element_dtype = 0;  // multiples of the dtype size
  double per_element_fixed = 0;  // bytes independent of the dtype
};

Traffic traffic(const MemoryKernelShape& s) {
  const bool b = s.backward;
  switch (s.kind) {
    case MemoryKernel::kLayerNorm:
    case MemoryKernel::kRmsNorm:
    case MemoryKernel::kGelu: return {b ? 3.0 : 2.0, 0};
    case MemoryKernel::kSwiGlu: return {b ? 5.0 : 3.0, 0};
    case MemoryKernel::kDropout: return {2, 1};
    case MemoryKernel::kResidualAdd: return {3, 0};
    case MemoryKernel::kRotary: return {2, 0};
    case MemoryKernel::kAdamUpdate: return {0, 30};
    case MemoryKernel::kFp8Cast: return {2, 1};
    case MemoryKernel::kSoftmax: return {b ? 3.0 : 2.0, 0};
    case MemoryKernel::kPermute: return {2, 0};
    case MemoryKernel::kRotaryUnfused: return {b ? 15.0 : 10.0, 0};
    case MemoryKernel::kSwiGluUnfused: return {b ? 13.0 : 5.0, 0};
    case MemoryKernel::kConcat: return {2, 0};
    case MemoryKernel::kGradAccumulate: return {3, 0};
    case MemoryKernel::kTopkCompress:
    case MemoryKernel::kTopkScatterAdd: return {1, 12};
  }
  return {};
}

}  // namespace

std::string memory_kernel_name(MemoryKernel kind) {
  switch (kind) {
    case MemoryKernel::kLayerNorm: return "layernorm";
    case MemoryKernel::kRmsNorm: return "rmsnorm";
    case MemoryKernel::kGelu: return "gelu";
    case MemoryKernel::kSwiGlu: return "swiglu";
    case MemoryKernel::kDropout: return "dropout";
    case MemoryKernel::kResidualAdd: return "residual_add";
    case MemoryKernel::kRotary: return "rotary";
    case MemoryKernel::kAdamUpdate: return "adam_update";
    case MemoryKernel::kFp8Cast: return "fp8_cast";
    case MemoryKernel::kSoftmax: return "softmax";
    case MemoryKernel::kPermute: return "permute";
    case MemoryKernel::kRotaryUnfused: return "rotary_unfused";
    case MemoryKernel::kSwiGluUnfused: return "swiglu_unfused";
    case MemoryKernel::kConcat: return "concat";
    case MemoryKernel::kGradAccumulate: return "grad_accumulate";
    case MemoryKernel::kTopkCompress: return "topk_compress";
    case MemoryKernel::kTopkScatterAdd: return "topk_scatter_add";
  }
  return "?";
}

Bytes memory_kernel_bytes(const MemoryKernelShape& shape) {
  if (shape.elements < 0) {
    throw InputError(memory_kernel_name(shape.kind), "elements", "must not be negative, got " + std::to_string(shape.elements));
  }
  const bool forward_only = shape.kind == MemoryKernel::kAdamUpdate || shape.kind == MemoryKernel::kFp8Cast ||
                            shape.kind == MemoryKernel::kTopkCompress || shape.kind == MemoryKernel::kTopkScatterAdd;
  if (shape.backward && forward_only) {
    throw InputError(memory_kernel_name(shape.kind), "backward", "this kernel has no backward pass");
  }
  const Traffic t = traffic(shape);
  const double per_element = t.per_element_dtype * dtype_bytes(shape.dtype) + t.per_element_fixed;
  return Bytes(std::llround(per_element * static_cast<double>(shape.elements)));
}

int memory_kernel_launches(const MemoryKernelShape& shape) {
  switch (shape.kind) {
    case MemoryKernel::kFp8Cast: return 2;
    case MemoryKernel::kRotaryUnfused: return shape.backward ? 18 : 10;  // q and k
    case MemoryKernel::kSwiGluUnfused: return shape.backward ? 4 : 2;
    default: return 1;
  }
}

KernelEstimate estimate_memory_kernel(const GpuSpec& gpu, const MemoryKernelShape& shape) {
  const int launches = memory_kernel_launches(shape);
  if (!gpu.non_gemm) {
    return roofline_kernel(gpu, FlopCount(0), FlopRate::per_second(1), 1.0, memory_kernel_bytes(shape), launches);
  }
  const bool norm = shape.kind == MemoryKernel::kLayerNorm || shape.kind == MemoryKernel::kRmsNorm;
  return roofline_kernel(gpu, FlopCount(0), FlopRate::per_second(1), 1.0, memory_kernel_bytes(shape),
                         norm ? gpu.non_gemm->norm_efficiency : gpu.non_gemm->memory_efficiency,
                         gpu.launch_overhead * launches);
}

}  // namespace ctwin::compute
