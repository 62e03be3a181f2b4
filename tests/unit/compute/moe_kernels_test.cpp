// The MoE kernel models (compute/moe_kernels.hpp): the grouped GEMM rows model against the dense GEMM
// it tends to, and the permutation's byte counts and times against closed forms.

#include <gtest/gtest.h>

#include "ctwin/compute/gemm_model.hpp"
#include "ctwin/compute/moe_kernels.hpp"
#include "ctwin/core/error.hpp"
#include "test_gpu.hpp"

namespace ctwin::compute {
namespace {

using testing::round_gpu;

TEST(GroupedGemmRows, IsTheDenseGemmOfAllRowsTimesOnePlusR0OverRows) {
  const GpuSpec gpu = round_gpu();
  const std::vector<std::int64_t> rows(8, 4096);
  const double dense = estimate_gemm(gpu, {8 * 4096, 1536, 2048, Dtype::kBf16}).time.seconds();
  EXPECT_NEAR(estimate_grouped_gemm_rows(gpu, {rows, 1536, 2048}, 304).seconds(), dense * (1 + 304.0 / 4096), 1e-12);
  EXPECT_NEAR(estimate_grouped_gemm_rows(gpu, {rows, 1536, 2048}).seconds(),
              dense * (1 + gpu.grouped_gemm_half_speed_rows / 4096), 1e-12);
}

TEST(GroupedGemmRows, ManyRowsPerExpertIsTheDenseGemm) {
  const GpuSpec gpu = round_gpu();
  const std::vector<std::int64_t> rows(4, 1 << 22);
  const double dense = estimate_gemm(gpu, {4 << 22, 1024, 1024, Dtype::kBf16}).time.seconds();
  EXPECT_NEAR(estimate_grouped_gemm_rows(gpu, {rows, 1024, 1024}).seconds() / dense, 1.0, 1e-4);
  // and r0 = 0 is the dense GEMM exactly, whatever the rows
  EXPECT_NEAR(estimate_grouped_gemm_rows(gpu, {{100, 100}, 1024, 1024}, 0).seconds(),
              estimate_gemm(gpu, {200, 1024, 1024, Dtype::kBf16}).time.seconds(), 1e-12);
}

TEST(GroupedGemmRows, WeightGradientsReduceOverTheRows) {
  const GpuSpec gpu = round_gpu();
  const double dense = estimate_gemm(gpu, {768, 2048, 4 * 512, Dtype::kBf16}).time.seconds();
  EXPECT_NEAR(estimate_grouped_gemm_rows(gpu, {{512, 512, 512, 512}, 2048, 768, Dtype::kBf16, GroupedTokens::kK}, 304)
                  .seconds(),
              dense * (1 + 304.0 / 512), 1e-12);
}

TEST(GroupedGemmRows, ExpertsWithoutRowsAreNotCountedInTheMean) {
  const GpuSpec gpu = round_gpu();
  EXPECT_EQ(estimate_grouped_gemm_rows(gpu, {{0, 1024, 0, 1024}, 512, 512}),
            estimate_grouped_gemm_rows(gpu, {{1024, 1024}, 512, 512}));
  EXPECT_EQ(estimate_grouped_gemm_rows(gpu, {{0, 0}, 512, 512}), SimTime());
  EXPECT_THROW((void)estimate_grouped_gemm_rows(gpu, {{-1, 8}, 512, 512}), InputError);
  EXPECT_THROW((void)estimate_grouped_gemm_rows(gpu, {{8}, 0, 512}), InputError);
}

double pass_sum(PermutePath path, std::int64_t routed, std::int64_t hidden, std::int64_t k, double* launches) {
  double bytes = 0;
  *launches = 0;
  for (const auto pass : {PermutePass::kPermute, PermutePass::kUnpermute, PermutePass::kUnpermuteBackward,
                          PermutePass::kPermuteBackward}) {
    const PermuteShape shape{path, pass, routed, hidden, k, 2};
    bytes += static_cast<double>(permute_bytes(shape).count());
    *launches += permute_launches(shape);
  }
  return bytes;
}

TEST(Permute, UnfusedMovesTheProfilesTwentyFourPassesInFourteenLaunches) {
  double launches = 0;
  const double bytes = pass_sum(PermutePath::kUnfused, 4096 * 8, 2048, 8, &launches);
  EXPECT_DOUBLE_EQ(bytes, 24.0 * 2 * 4096 * 8 * 2048);
  EXPECT_EQ(launches, 14);
}

TEST(Permute, FusedMovesEachCopyOnceAndEachTokenRowOncePerPass) {
  // 2e + (1 + 1/k)e + (2 + 1/k)e + (1 + 1/k)e = (6 + 3/k)e per routed element.
  double launches = 0;
  const std::int64_t k = 4, routed = 1000 * k, h = 1024;
  const double bytes = pass_sum(PermutePath::kFused, routed, h, k, &launches);
  EXPECT_NEAR(bytes, (6 + 3.0 / k) * 2 * static_cast<double>(routed * h), 2.0);
  EXPECT_EQ(launches, 4);
}

TEST(Permute, TimeIsLaunchesPlusBytesOverEffectiveBandwidth) {
  const GpuSpec gpu = round_gpu();
  const PermuteShape unfused{PermutePath::kUnfused, PermutePass::kUnpermute, 8192, 4096, 2, 2};
  const double expected = 4 * 2e-6 + 6.0 * 2 * 8192 * 4096 / (1e12 * gpu.permute_hbm_efficiency);
  EXPECT_NEAR(estimate_permute(gpu, unfused).time.seconds(), expected, 1e-12);
  const PermuteShape fused{PermutePath::kFused, PermutePass::kPermute, 8192, 4096, 2, 2};
  EXPECT_NEAR(estimate_permute(gpu, fused).time.seconds(), 2e-6 + 2.0 * 2 * 8192 * 4096 / (1e12 * gpu.efficiency.hbm),
              1e-12);
  EXPECT_THROW((void)estimate_permute(gpu, fused, 0), InputError);
  EXPECT_THROW((void)permute_bytes({PermutePath::kFused, PermutePass::kPermute, 8, 0, 2, 2}), InputError);
}

}  // namespace
}  // namespace ctwin::compute
