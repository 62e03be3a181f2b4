#include "ctwin/compute/flash_attention.hpp"

#include <cmath>
#include <string>

#include "ctwin/core/error.hpp"

namespace ctwin::compute {
namespace {

constexpr double kBackwardOverForward = 2.5;
constexpr double kLogSumExpBytes = 4;  // fp32 per query row and head

void validate(const AttentionShape& s) {
  for (const auto& [name, value] : {std::pair{"batch", s.batch}, std::pair{"seq_q", s.seq_q},
                                    std::pair{"seq_kv", s.seq_kv}, std::pair{"heads_q", s.heads_q},
                                    std::pair{"heads_kv", s.heads_kv}, std::pair{"head_dim", s.head_dim}}) {
    if (value <= 0) throw InputError("attention", name, "must be positive, got " + std::to_string(value));
  }
  if (s.heads_q % s.heads_kv != 0) {
    throw InputError("attention", "heads_kv",
                     std::to_string(s.heads_kv) + " does not divide " + std::to_string(s.heads_q) + " query heads");
  }
  if (s.window < 0 || (s.window > 0 && s.seq_q != s.seq_kv)) {
    throw InputError("attention", "window", "a sliding window needs seq_q == seq_kv and a non-negative size");
  }
}

double d(std::int64_t v) { return static_cast<double>(v); }

// Elements of Q (or O, dO, dQ) and of K (or V, dK, dV).
double q_elements(const AttentionShape& s) { return d(s.batch) * d(s.seq_q) * d(s.heads_q) * d(s.head_dim); }
double kv_elements(const AttentionShape& s) { return d(s.batch) * d(s.seq_kv) * d(s.heads_kv) * d(s.head_dim); }
double lse_bytes(const AttentionShape& s) { return d(s.batch) * d(s.heads_q) * d(s.seq_q) * kLogSumExpBytes; }

}  // namespace

FlopCount flash_attention_forward_flops(const AttentionShape& s) {
  const double full = 4.0 * d(s.batch) * d(s.heads_q) * d(s.seq_q) * d(s.seq_kv) * d(s.head_dim);
  if (s.window > 0 && s.window < s.seq_kv) {
    const double w = d(s.window) / d(s.seq_kv);  // fraction of the keys a query can see
    return FlopCount(full * (s.causal ? w - w * w / 2 : w));
  }
  if (!s.causal) return FlopCount(full);
  if (s.seq_q == s.seq_kv) return FlopCount(full / 2);
  // Bottom-right aligned mask (see the header): the fraction of the S_q × S_kv pairs computed.
  const double q = d(s.seq_q);
  const double kv = d(s.seq_kv);
  return FlopCount(q <= kv ? full * (1 - q / (2 * kv)) : full * kv / (2 * q));
}

FlopCount flash_attention_backward_flops(const AttentionShape& s) {
  return FlopCount(kBackwardOverForward * flash_attention_forward_flops(s).count());
}

Bytes flash_attention_forward_bytes(const AttentionShape& s) {
  const double element = dtype_bytes(s.dtype);
  // Read Q, K, V; write O and the log-sum-exp the backward pass needs.
  return Bytes(std::llround((2 * q_elements(s) + 2 * kv_elements(s)) * element + lse_bytes(s)));
}

Bytes flash_attention_backward_bytes(const AttentionShape& s) {
  const double element = dtype_bytes(s.dtype);
  // Read Q, O, dO and K, V, the log-sum-exp; write dQ and dK, dV.
  return Bytes(std::llround((4 * q_elements(s) + 4 * kv_elements(s)) * element + lse_bytes(s)));
}

KernelEstimate estimate_flash_attention_forward(const GpuSpec& gpu, const AttentionShape& shape) {
  validate(shape);
  if (const auto& measured = gpu.non_gemm) {
    return roofline_kernel(gpu, flash_attention_forward_flops(shape), gpu.peak(shape.dtype), measured->attention_fwd_efficiency,
                           flash_attention_forward_bytes(shape), measured->memory_efficiency, measured->attention_fwd_fixed);
  }
  return roofline_kernel(gpu, flash_attention_forward_flops(shape), gpu.peak(shape.dtype), gpu.efficiency.attention_fwd,
                         flash_attention_forward_bytes(shape));
}

KernelEstimate estimate_flash_attention_backward(const GpuSpec& gpu, const AttentionShape& shape) {
  validate(shape);
  if (const auto& measured = gpu.non_gemm) {
    return roofline_kernel(gpu, flash_attention_backward_flops(shape), gpu.peak(shape.dtype), measured->attention_bwd_efficiency,
                           flash_attention_backward_bytes(shape), measured->memory_efficiency, measured->attention_bwd_fixed);
  }
  return roofline_kernel(gpu, flash_attention_backward_flops(shape), gpu.peak(shape.dtype),
                         gpu.efficiency.attention_bwd, flash_attention_backward_bytes(shape));
}

}  // namespace ctwin::compute
