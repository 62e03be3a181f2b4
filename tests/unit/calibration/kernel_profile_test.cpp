// The MoE kernel profile against the compute twin (calibration/kernel_profile.hpp,
// validation/kernel_validation.hpp): the fits recover known parameters, the measured H200 rows are
// predicted within the issue's 15 % median on held-out rows, bad files are InputErrors.

#include "ctwin/calibration/kernel_profile.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <vector>

#include "ctwin/validation/kernel_validation.hpp"
#include "ctwin/compute/gpu_spec.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/core/error_stats.hpp"
#include "source_root.hpp"

namespace ctwin::calibration {
namespace {

const std::string kProfile = kRoot + "/validation/kernels/h200-kernel-profile.json";
const std::string kH200 = kRoot + "/models/gpus/calibrated/gemm/h200.json";

TEST(KernelProfile, ReadsTheMoeRowsOfTheH200Profile) {
  const KernelProfile profile = read_kernel_profile(kProfile);
  EXPECT_EQ(profile.gpu, "NVIDIA H200");
  EXPECT_EQ(profile.experts.size(), 20u);
  EXPECT_EQ(profile.routing.size(), 4u);
  for (const auto& row : profile.experts) EXPECT_EQ(row.rows_per_expert * row.local_experts, row.tokens * row.top_k);
}

// Synthetic measurements made with r0 = 300 rows and an efficiency of 0.4 are fitted back.
TEST(KernelProfile, FitsRecoverTheParametersSyntheticRowsWereMadeWith) {
  const compute::GpuSpec gpu = compute::load_gpu_spec(kH200);
  KernelProfile profile = read_kernel_profile(kProfile);
  for (auto& row : profile.experts) row.grouped_ms = predict_expert_block(gpu, row, 300).rows_model_ms;
  for (auto& row : profile.routing) row.permute_ms = predict_permute_ms(gpu, row, 0.4);
  EXPECT_NEAR(fit_half_speed_rows(gpu, profile.experts), 300, 0.5);
  EXPECT_NEAR(fit_permute_efficiency(gpu, profile.routing), 0.4, 1e-4);
}

// The rows model: at r0 = 0 it is the dense block; it grows as 1/R.
TEST(KernelProfile, RowsModelLimits) {
  const compute::GpuSpec gpu = compute::load_gpu_spec(kH200);
  const ExpertBlockRow row = read_kernel_profile(kProfile).experts.front();
  const auto at_zero = predict_expert_block(gpu, row, 0);
  EXPECT_DOUBLE_EQ(at_zero.rows_model_ms, at_zero.dense_ms);
  const auto at_r = predict_expert_block(gpu, row, static_cast<double>(row.rows_per_expert));
  EXPECT_GT(at_r.rows_model_ms, 1.9 * at_zero.dense_ms * 0.9);
  EXPECT_LT(at_r.rows_model_ms, 2 * at_zero.dense_ms);
}

// The issue's acceptance: grouped GEMM and permute/unpermute within 15 % median of the measured
// H200 rows, on rows the fits did not see; the dense control shows the GEMM model's own error.
TEST(KernelProfile, H200HeldOutRowsWithinFifteenPercentMedian) {
  const api::KernelValidation v = api::validate_kernels(kProfile, kH200);
  EXPECT_EQ(v.rows_model_held_out.count, 9);
  EXPECT_EQ(v.permute_held_out.count, 2);
  EXPECT_LT(v.rows_model_held_out.median_abs, 0.15);
  EXPECT_LT(v.permute_held_out.median_abs, 0.15);
  EXPECT_LT(v.dense_all.median_abs, 0.15);
  // The per-expert model the MoE layer uses today misses small experts by a factor (each expert's
  // GEMM alone cannot fill the GPU; the grouped kernel fills it across experts); the rows model
  // does not, on any row.
  double worst_rows_model = 0;
  for (const auto& c : v.experts) {
    worst_rows_model = std::max(worst_rows_model, std::abs(c.predicted.rows_model_ms / c.row.grouped_ms - 1));
  }
  EXPECT_LT(worst_rows_model, 0.25);
  EXPECT_GT(v.per_expert_all.max_abs, 1.0);
  EXPECT_GT(v.half_speed_rows, 10);
  EXPECT_LT(v.half_speed_rows, 2000);
}

// The H100 profile (validation/kernels/h100-kernel-profile.json, the same collector on an H100
// 80GB HBM3), predicted with the H100 GEMM table fitted to the same machine's sweep: the rows model
// holds on its held-out rows, and r0 fitted on the H200 alone predicts every H100 row within the
// issue's 15 % median (a GPU the fit never saw).
TEST(KernelProfile, H100RowsFollowTheRowsModelAndTheH200Fit) {
  const std::string h100_profile = kRoot + "/validation/kernels/h100-kernel-profile.json";
  const std::string h100_gpu = kRoot + "/models/gpus/calibrated/gemm/h100-sxm.json";
  const api::KernelValidation v = api::validate_kernels(h100_profile, h100_gpu);
  EXPECT_EQ(v.experts.size(), 20u);
  EXPECT_LT(v.rows_model_held_out.median_abs, 0.10);
  EXPECT_LT(v.dense_all.median_abs, 0.10);
  const double h200_r0 = api::validate_kernels(kProfile, kH200).half_speed_rows;
  const compute::GpuSpec gpu = compute::load_gpu_spec(h100_gpu);
  std::vector<double> errors;
  for (const auto& row : read_kernel_profile(h100_profile).experts) {
    errors.push_back(predict_expert_block(gpu, row, h200_r0).rows_model_ms / row.grouped_ms - 1);
  }
  const ErrorStats cross_gpu = error_stats(errors);
  EXPECT_EQ(cross_gpu.count, 20u);
  EXPECT_LT(cross_gpu.median_abs, 0.15);
  EXPECT_LT(cross_gpu.max_abs, 0.25);
}

TEST(KernelProfile, BadFilesAreInputErrors) {
  const auto dir = std::filesystem::temp_directory_path() / "ctwin-kernel-profile-test";
  std::filesystem::create_directories(dir);
  const auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir / name) << text;
    return (dir / name).string();
  };
  EXPECT_THROW((void)read_kernel_profile(write("empty.json", R"({"gpu": "x", "rows": []})")), InputError);
  EXPECT_THROW((void)read_kernel_profile(write("array.json", "[]")), InputError);
  EXPECT_THROW((void)read_kernel_profile(write(
                   "uneven.json",
                   R"({"gpu": "x", "rows": [{"kind": "moe_experts", "model": "m", "hidden": 8, "expert_ffn": 8,
                       "experts": 8, "top_k": 2, "tokens": 16, "local_experts": 8, "ep": 1, "rows_per_expert": 5,
                       "fwd_bwd_tflop": 1, "loop_ms": 1, "loop_host_ms": 1, "dense_same_flops_ms": 1,
                       "dense_tflops": 1, "loop_tflops": 1, "grouped_ms": 1, "grouped_host_ms": 1,
                       "grouped_tflops": 1}]})")),
               InputError);
  EXPECT_THROW((void)read_kernel_profile(write(
                   "negative.json",
                   R"({"gpu": "x", "rows": [{"kind": "moe_router_permute", "model": "m", "hidden": 8, "experts": 8,
                       "top_k": 2, "tokens": 16, "router_fwd_bwd_ms": -1, "router_host_ms": 1,
                       "permute_unpermute_fwd_bwd_ms": 1, "permute_host_ms": 1}]})")),
               InputError);
}

}  // namespace
}  // namespace ctwin::calibration
