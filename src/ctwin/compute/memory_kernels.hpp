#pragma once
// Memory-bound kernels: time = launches · launch overhead + HBM bytes / (bandwidth · efficiency).
// Their FLOPs are negligible next to their bytes on every GPU in models/gpus (arithmetic
// intensity below 2 FLOP/B against ridge points above 100), so only bytes are counted.
//
// Bytes per element, `e` the activation dtype's size (forward / backward):
//   layernorm, rmsnorm   2e / 3e       read x, write y  /  read x and dy, write dx
//   gelu                 2e / 3e       same pattern
//   swiglu               3e / 5e       elements = outputs; two inputs per output
//   dropout              2e+1 / 2e+1   plus a one-byte mask written, then read
//   residual_add         3e / 3e       two operands and a result; backward accumulates grads
//   rotary               2e / 2e       the cos/sin tables are small and stay in L2
//   adam_update          30 / -        per parameter: fp32 master, exp_avg, exp_avg_sq read and
//                                      written (24), fp32 grad read (4), bf16 weight written (2)
//   fp8_cast             2e+1 / -      dynamic scaling: an amax pass reads x, the cast reads x
//                                      again and writes 1 byte; two launches
//   permute              2e / 2e       MoE token (un)permutation: a row gather, each element read
//                                      once and written once at its destination (elements = rows
//                                      moved × hidden); the backward is the inverse gather
// Eager PyTorch (a stack with "layer_kernels": "eager", replay/stack_profile.hpp) runs some of these
// as several kernels; autograd's own reading of each op, per element of the output:
//   rotary_unfused      10e / 15e      x·cos + cat(−x₂, x₁)·sin per tensor: neg (1e), cat (2e), two
//                                      muls (2e each), add (3e), 5 launches; backward: grad·cos and
//                                      grad·sin (2e each), neg (1e), two slice backwards (zeros and a
//                                      copy, 2e each) and two adds summing x's three grads (3e each),
//                                      9 launches. Elements = q and k together: launches are per tensor,
//                                      twice these (two tensors)
//   swiglu_unfused      5e / 13e       silu(gate) (2e) then · up (3e), 2 launches; backward: two muls
//                                      (3e each), silu's backward (3e), chunk's backward cat (4e), 4 launches
//   concat              2e / 2e        autograd's cat of split outputs' grads (q, k, v into QKV's)
//   grad_accumulate     3e / 3e        param.grad += new grad, one per weight (elements = parameters)
// Top-k gradient sparsification (training.gradient_topk; Lin et al., "Deep Gradient Compression",
// ICLR 2018: local accumulation of what is not sent, a threshold above which elements are sent),
// e the gradient's dtype (fp32, or bf16 without grad_reduce_in_fp32):
//   topk_compress       e+12 / -       per gradient element: read it (e), add it to the fp32 residual
//                                      (read and write, 8), read the sum again against the threshold (4)
//   topk_scatter_add    e+12 / -       per received entry: its value (e) and int32 index (4), and the
//                                      dense fp32 gradient at that index read and written (8)

#include <cstdint>
#include <string>

#include "ctwin/compute/dtype.hpp"
#include "ctwin/compute/gpu_spec.hpp"
#include "ctwin/compute/kernel_estimate.hpp"

namespace ctwin::compute {

/// kSoftmax is the fused scale-mask-softmax over an unfused attention's s×s scores (Megatron's
/// scaled_upper_triang_masked_softmax): one read and one write forward; backward reads the
/// probabilities and their gradient and writes one gradient.
enum class MemoryKernel {
  kLayerNorm, kRmsNorm, kGelu, kSwiGlu, kDropout, kResidualAdd, kRotary, kAdamUpdate, kFp8Cast, kSoftmax, kPermute,
  kRotaryUnfused, kSwiGluUnfused, kConcat, kGradAccumulate, kTopkCompress, kTopkScatterAdd
};

struct MemoryKernelShape {
  MemoryKernel kind = MemoryKernel::kRmsNorm;
  std::int64_t elements = 0;  ///< output elements (parameters for adam_update)
  Dtype dtype = Dtype::kBf16;  ///< of the activations (the source for fp8_cast)
  bool backward = false;
};

[[nodiscard]] std::string memory_kernel_name(MemoryKernel kind);
/// HBM bytes the kernel moves; InputError for a backward of adam_update or fp8_cast.
[[nodiscard]] Bytes memory_kernel_bytes(const MemoryKernelShape& shape);
/// Kernels the shape launches (fp8_cast 2, the unfused kinds above, else 1).
[[nodiscard]] int memory_kernel_launches(const MemoryKernelShape& shape);
/// bytes / (HBM · efficiency) + launches · launch_overhead; the efficiency is the profile's measured
/// class (GpuSpec::non_gemm: norms apart from the rest) when it has one, else efficiency.hbm.
[[nodiscard]] KernelEstimate estimate_memory_kernel(const GpuSpec& gpu, const MemoryKernelShape& shape);

}  // namespace ctwin::compute
