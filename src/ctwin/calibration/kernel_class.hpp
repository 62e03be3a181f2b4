#pragma once
// The classes a profiler trace's GPU kernels fall into, so that a measured step and the twin's
// step can be compared class by class (issue 41 item 3): GEMMs, grouped GEMMs, attention,
// norms and elementwise work, quantize/cast passes, token permutation, the optimizer, and NCCL
// by collective. Real kernel names (cuBLAS/CUTLASS/nvjet, FlashAttention, Transformer Engine,
// NCCL, PyTorch's elementwise kernels) and the twin's own op names (ctwin run --trace) both map.

#include <array>
#include <string_view>

namespace ctwin::calibration {

enum class KernelClass {
  kGemm,
  kGroupedGemm,
  kAttention,
  kNormElementwise,
  kQuantizeCast,
  kPermute,
  kOptimizer,
  kAllReduce,
  kAllGather,
  kReduceScatter,
  kAllToAll,
  kSendRecv,
  kOther,
};

inline constexpr std::array kKernelClasses{
    KernelClass::kGemm,       KernelClass::kGroupedGemm, KernelClass::kAttention,     KernelClass::kNormElementwise,
    KernelClass::kQuantizeCast, KernelClass::kPermute,   KernelClass::kOptimizer,     KernelClass::kAllReduce,
    KernelClass::kAllGather,  KernelClass::kReduceScatter, KernelClass::kAllToAll,   KernelClass::kSendRecv,
    KernelClass::kOther};

/// "gemm", "grouped_gemm", "attention", "norm_elementwise", "quantize_cast", "permute", "optimizer",
/// "nccl_all_reduce", "nccl_all_gather", "nccl_reduce_scatter", "nccl_all_to_all", "nccl_send_recv",
/// "other".
[[nodiscard]] std::string_view kernel_class_name(KernelClass c);

[[nodiscard]] bool is_communication(KernelClass c);

/// The class of a kernel or op name, by the words it contains (case ignored), in an order where
/// the more specific words win: communication, then quantize/cast, grouped GEMM, GEMM, attention,
/// permutation, optimizer, elementwise. A name no rule knows is `kOther`.
[[nodiscard]] KernelClass classify_kernel(std::string_view name);

}  // namespace ctwin::calibration
