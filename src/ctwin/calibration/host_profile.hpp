#pragma once
// What issuing an op costs the host in a training step, from the kernel profile's host columns
// (validation/kernels/h200-kernel-profile.json, validation/collect/kernel_profile.py: `*_host_ms`
// is the CPU wall time to issue one forward+backward of the block, before the GPU finishes).
//
// Unit: one bare eager launch on the same host, the profile's launch row (1,000 64×64 matmuls in a
// Python loop, no autograd: 21.0 us each on the H200 VM, the GPU time equal to it). An op inside a
// forward+backward autograd step costs `factor` such launches (Python, the autograd graph's
// record and replay, the ATen dispatcher, allocations, the launch). Kernels per profiled block,
// forward + backward, by our reading of kernel_profile.py under PyTorch's autograd (repeated calls,
// so gradients accumulate: one add per leaf):
//   router   14: matmul, fp32 cast, softmax, top-k, sum; the loss seed, top-k backward (zeros,
//            scatter), softmax backward, cast backward, two matmuls, two gradient accumulations;
//   permute  17: argsort (2: iota, sort), index division, index_select, the weight gather, scale,
//            zeros, index_add (2: copy, add), sum; the seed, index_select of the gradient, its
//            scale, index_select backward (zeros, index_add), accumulation;
//   grouped  15: two grouped GEMMs, SiLU, product; SwiGLU backward (two products, SiLU backward,
//            the chunks' concatenation), four grouped GEMMs (data and weight gradients), three
//            accumulations.
// Fits (least squares on the log, as the other kernel fits): the op factor on the router rows,
// judged on the permutation rows; the grouped factor on the expert rows at 4,096 tokens, judged
// on those at 8,192 (the same split as the rows model). The counts are a reading, not a trace:
// a profile with torch.profiler's kernel counts would settle them.

#include <cstdint>
#include <string>
#include <vector>

#include "ctwin/calibration/kernel_profile.hpp"
#include "ctwin/core/error_stats.hpp"

namespace ctwin::calibration {

inline constexpr int kRouterKernels = 14;
inline constexpr int kPermuteKernels = 17;
inline constexpr int kGroupedBlockKernels = 15;

struct HostRow {
  std::string kind;  ///< "router", "permute", "grouped"
  std::string model;
  std::int64_t tokens = 0, local_experts = 0;
  int kernels = 0;
  bool fit = false;  ///< in the fit set (else held out)
  double measured_ms = 0, predicted_ms = 0;
  [[nodiscard]] double error() const { return predicted_ms / measured_ms - 1; }
};

struct HostProfileFit {
  double launch_us = 0;       ///< the profile's bare eager launch (its launch row)
  double op_factor = 0;       ///< an op of a forward+backward autograd step, in launches
  double grouped_factor = 0;  ///< a grouped GEMM block's op, in launches
  std::vector<HostRow> rows;
  ErrorStats fit, held_out;
};

/// InputError naming the profile when it has no launch row or no host columns to fit.
[[nodiscard]] HostProfileFit fit_host_profile(const KernelProfile& profile, const std::string& source);

}  // namespace ctwin::calibration
