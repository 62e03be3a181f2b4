#pragma once
// The pieces of an MoE layer that a per-GEMM model misses, measured on one GPU
// (validation/kernels: validation/collect/kernel_profile.py) and predicted by the compute twin.
//
// Expert block (per row of "moe_experts"): fc1 h → 2f, SwiGLU, fc2 f → h over L local experts of
// R rows each, forward and backward (data and weight gradients: six GEMMs), bf16, timed three ways:
// a Python loop over the experts, one grouped GEMM (torch._grouped_mm) and one dense GEMM of the
// same FLOPs (all L·R rows against one expert's weights). Predicted here:
//   dense    the six GEMMs with M = L·R (compute::estimate_gemm) + SwiGLU forward and backward
//            (compute::estimate_memory_kernel): the GEMM model's own check at these shapes;
//   per-expert  compute::estimate_grouped_gemm (one launch, each expert's GEMM on its own), what
//            the MoE layer (replay/moe_layer.hpp) uses today;
//   rows model  dense × (1 + r0 / R): a grouped kernel on R rows per expert runs at R / (R + r0) of
//            one dense GEMM's speed (tiles of short experts stay part-empty, and its schedule walks
//            L problems). r0 is fitted here on the rows given as the fit set.
// Router and permutation (per row of "moe_router_permute"): eager PyTorch, fwd+bwd. The permute/
// unpermute path moves, per routed element (tokens·top_k·hidden, e = 2 bytes), 24e bytes: forward
// a gather (2e), the probability scale (2e) and an index_add (2e, a read-modify-write into the
// token rows); backward their mirrors (gather 2e, scale 4e: two products, the weight gradient's
// reduction 2e, index_add 2e) plus the weights and index (negligible). Predicted as
// launches · launch + bytes / (HBM · efficiency), the efficiency fitted on the fit rows (index_add's
// atomics keep it well below a copy's). The router (a tokens × experts logit GEMM, an fp32 softmax
// and top-k, forward and backward) moves ~1 MB: its time is the host's launches (host time equals
// GPU time in the profile), reported, not modelled here.

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "ctwin/compute/gpu_spec.hpp"

namespace ctwin::calibration {

struct ExpertBlockRow {
  std::string model;
  std::int64_t hidden = 0, expert_ffn = 0, tokens = 0, top_k = 0, local_experts = 0, rows_per_expert = 0;
  double loop_ms = 0, grouped_ms = 0, dense_ms = 0;  ///< measured, GPU time
  double loop_host_ms = 0, grouped_host_ms = 0;  ///< host wall time to issue (0: not measured)
};

struct RoutingRow {
  std::string model;
  std::int64_t hidden = 0, experts = 0, top_k = 0, tokens = 0;
  double router_ms = 0, router_host_ms = 0, permute_ms = 0, permute_host_ms = 0;
};

struct KernelProfile {
  std::string gpu;
  double launch_host_us = 0;  ///< the launch row: host time per bare eager launch (0: no such row)
  std::vector<ExpertBlockRow> experts;
  std::vector<RoutingRow> routing;
};

/// Reads kernel_profile.py's JSON; rows of other kinds (attention, copy, launch) and expert rows
/// that failed (out of memory, no grouped GEMM) are skipped. InputError naming the file and field.
[[nodiscard]] KernelProfile read_kernel_profile(const std::filesystem::path& path);

struct ExpertBlockPrediction {
  double dense_ms = 0;       ///< one dense GEMM of all rows (the control)
  double per_expert_ms = 0;  ///< estimate_grouped_gemm, today's MoE layer model
  double rows_model_ms = 0;  ///< dense × (1 + r0 / R)
};

[[nodiscard]] ExpertBlockPrediction predict_expert_block(const compute::GpuSpec& gpu, const ExpertBlockRow& row,
                                                         double half_speed_rows);

/// Bytes the eager permute + unpermute moves forward and backward (compute/moe_kernels.hpp's unfused
/// path, the one the training step uses without moe_permute_fusion).
[[nodiscard]] double permute_bytes(const RoutingRow& row);
[[nodiscard]] double predict_permute_ms(const compute::GpuSpec& gpu, const RoutingRow& row, double hbm_efficiency);

/// r0 minimising the squared log error of the rows model's grouped time over `rows`.
[[nodiscard]] double fit_half_speed_rows(const compute::GpuSpec& gpu, const std::vector<ExpertBlockRow>& rows);
/// The HBM efficiency minimising the squared log error of the permute time over `rows`.
[[nodiscard]] double fit_permute_efficiency(const compute::GpuSpec& gpu, const std::vector<RoutingRow>& rows);

}  // namespace ctwin::calibration
