#pragma once
// The MoE expert-parallel kernels as measured on one GPU and modelled once, for both the kernel-profile
// check (`ctwin validate --kernels`, calibration/kernel_profile) and the training step
// (replay/moe_layer): grouped expert GEMMs by rows per expert, and token permutation as memory-bound
// kernels with their byte counts.
//
// Grouped GEMM, the rows model: a grouped kernel over experts of R rows each runs at R / (R + r0) of
// the speed of one dense GEMM with all their rows (M = Σ rows, or K = Σ rows for a weight gradient):
// time = dense × (1 + r0 / R). Short experts leave their last tiles part-empty and the kernel walks
// many small problems; with R ≫ r0 it is the dense GEMM. r0 is a GPU-profile parameter
// (GpuSpec::grouped_gemm_half_speed_rows); its default is the fit on the H200 kernel profile
// (docs/moe-kernels.md: 304 rows, held-out median error 12.1 %).
//
// Permute and unpermute (forward: gather the routed copies by expert; after the experts, scale by
// the routing probability and sum the top_k copies back; backward: their mirrors), per routed
// element (tokens · top_k · hidden, e bytes each):
//   unfused  Megatron-Core's default (moe_permute_fusion off: index_select, a product and a
//            scatter_add, autograd's backwards): 24e bytes over the four passes at the profile's
//            permute HBM efficiency, the model the H200 profile measured (eager PyTorch, 14 launches);
//   fused    TransformerEngine's moe_permute / moe_unpermute (moe_permute_fusion on): permute
//            reads each copy's source row and writes it (2e); unpermute reads the k copies and the
//            probabilities and writes one row per token ((1 + 1/k)e); unpermute backward writes the
//            k scaled copies of the token gradient and reads the copies again for the probability
//            gradient ((2 + 1/k)e); permute backward sums the k copies ((1 + 1/k)e). One launch each,
//            at the GPU's streaming HBM efficiency. Derived from the kernels' data flow, not measured.

#include <cstdint>

#include "ctwin/compute/grouped_gemm.hpp"
#include "ctwin/compute/kernel_estimate.hpp"

namespace ctwin::compute {

/// The rows model's grouped GEMM time with half-speed rows `half_speed_rows` (r0), R the mean rows
/// over the experts that received any. InputError as estimate_grouped_gemm.
[[nodiscard]] SimTime estimate_grouped_gemm_rows(const GpuSpec& gpu, const GroupedGemmShape& shape,
                                                 double half_speed_rows);
/// With the GPU's own r0 (GpuSpec::grouped_gemm_half_speed_rows).
[[nodiscard]] SimTime estimate_grouped_gemm_rows(const GpuSpec& gpu, const GroupedGemmShape& shape);

enum class PermutePath { kUnfused, kFused };
enum class PermutePass { kPermute, kUnpermute, kUnpermuteBackward, kPermuteBackward };

struct PermuteShape {
  PermutePath path = PermutePath::kUnfused;
  PermutePass pass = PermutePass::kPermute;
  std::int64_t routed_rows = 0;  ///< tokens · top_k
  std::int64_t hidden = 0;
  std::int64_t top_k = 1;
  int element_bytes = 2;
};

/// HBM bytes of one pass (see the file comment); InputError for negative or zero sizes.
[[nodiscard]] Bytes permute_bytes(const PermuteShape& shape);
/// Kernels one pass launches.
[[nodiscard]] int permute_launches(const PermuteShape& shape);
/// launches · launch overhead + bytes / (HBM · efficiency): the profile's permute efficiency for the
/// unfused path (GpuSpec::permute_hbm_efficiency), the streaming one (efficiency.hbm) for the fused.
[[nodiscard]] KernelEstimate estimate_permute(const GpuSpec& gpu, const PermuteShape& shape);
/// The same with an explicit HBM efficiency (what the profile fit varies).
[[nodiscard]] KernelEstimate estimate_permute(const GpuSpec& gpu, const PermuteShape& shape, double hbm_efficiency);

}  // namespace ctwin::compute
