// Oracles for the GEMM model: closed forms of the roofline at its limits, wave quantization,
// and the calibrated table at and between its grid points.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "ctwin/compute/gemm_model.hpp"
#include "ctwin/core/error.hpp"
#include "test_gpu.hpp"

namespace ctwin::compute {
namespace {

using testing::round_gpu;

TEST(GemmRoofline, HugeGemmApproachesPeakTimesEfficiency) {
  const GpuSpec gpu = round_gpu();
  // 128·100 rows and 128·100 columns fill exactly 100 waves of 100 SMs: no quantization loss.
  const GemmShape shape{12800 * 10, 12800, 65536, Dtype::kBf16};
  const GemmEstimate estimate = estimate_gemm(gpu, shape);
  EXPECT_EQ(estimate.source, GemmSource::kRoofline);
  EXPECT_FALSE(estimate.roofline.memory_bound());
  EXPECT_NEAR(estimate.rate().per_second() / (1e15 * 0.8), 1.0, 1e-4);
}

TEST(GemmRoofline, TinyGemmIsBoundByLaunchOverhead) {
  const GpuSpec gpu = round_gpu();
  const GemmShape shape{1, 64, 64, Dtype::kBf16};
  // One 128x128 tile on one SM (a hundredth of the peak), or the bytes, whichever is slower.
  const double tile = 2.0 * 128 * 128 * 64 / (1e15 * 0.8 / 100);
  const double bytes = (1 * 64 + 64 * 64 + 1 * 64) * 2.0 / (1e12 * 0.5);
  const GemmEstimate estimate = estimate_gemm(gpu, shape);
  EXPECT_NEAR(estimate.time.seconds(), 2e-6 + std::max(tile, bytes), 1e-12);
  EXPECT_LT(estimate.time.seconds(), 1.2 * 2e-6);       // mostly launch
  EXPECT_LT(estimate.rate().per_second(), 1e-3 * 1e15);  // far from peak
}

TEST(GemmRoofline, MemoryBoundMatrixVectorIsBandwidthLimited) {
  const GpuSpec gpu = round_gpu();
  const GemmShape shape{1, 16384, 16384, Dtype::kBf16};
  const GemmEstimate estimate = estimate_gemm(gpu, shape);
  EXPECT_TRUE(estimate.roofline.memory_bound());
  const double weight_bytes = 16384.0 * 16384.0 * 2;
  EXPECT_NEAR(estimate.time.seconds(), 2e-6 + estimate.roofline.bytes.count() / 0.5e12, 1e-12);
  EXPECT_GT(estimate.roofline.bytes.count(), weight_bytes);
}

TEST(GemmRoofline, WaveQuantizationStepsWhereSmCountPredicts) {
  GpuSpec gpu = round_gpu();  // 100 SMs, 128x128 tiles
  gpu.hbm_bandwidth = Bandwidth::bytes_per_second(1e18);  // so that compute alone decides
  auto time_for_tiles = [&](std::int64_t tile_rows) {
    return estimate_gemm(gpu, {128 * tile_rows, 128, 8192, Dtype::kBf16}).time;
  };
  // 100 tiles fill one wave, 101 need two: the time doubles (less the launch) at that step...
  const SimTime one_wave = time_for_tiles(100);
  const SimTime two_waves = time_for_tiles(101);
  EXPECT_NEAR((two_waves - gpu.launch_overhead).seconds() / (one_wave - gpu.launch_overhead).seconds(), 2.0, 1e-6);
  // ...and stays flat from 101 to 200 tiles.
  EXPECT_EQ(time_for_tiles(150), two_waves);
  EXPECT_EQ(time_for_tiles(200), two_waves);
  EXPECT_GT(time_for_tiles(201), two_waves);
  // Below a full wave, fewer tiles do not make it faster.
  EXPECT_EQ(time_for_tiles(50), one_wave);
}

TEST(GemmRoofline, PicksTheTileThatQuantizesBest) {
  GpuSpec gpu = round_gpu();
  gpu.hbm_bandwidth = Bandwidth::bytes_per_second(1e18);
  gpu.gemm_tiles = {{128, 128}, {64, 64}};
  // 101 tiles of 128x128 need two waves; with 64x64 tiles (404) the last wave is nearly full.
  const GemmEstimate estimate = estimate_gemm(gpu, {128 * 101, 128, 8192, Dtype::kBf16});
  EXPECT_EQ(estimate.roofline.tile.m, 64);
  EXPECT_EQ(estimate.roofline.waves, 5);
}

TEST(GemmModel, CalibratedTableScalesTheIdealRoofline) {
  GpuSpec gpu = round_gpu();
  EfficiencyGrid grid;
  grid.m = {1024, 4096};
  grid.n = {1024};
  grid.k = {1024};
  grid.efficiency = {0.5, 0.8};
  GemmEfficiencyTable table;
  table.set(Dtype::kBf16, grid);
  gpu.gemm_table = table;
  const GemmShape at_grid{4096, 1024, 1024, Dtype::kBf16};
  const GemmEstimate estimate = estimate_gemm(gpu, at_grid);
  EXPECT_EQ(estimate.source, GemmSource::kTable);
  EXPECT_NEAR(estimate.time.seconds(), ideal_gemm_roofline(gpu, at_grid).time.seconds() / 0.8, 1e-12);
  // Halfway in log M the efficiency is the geometric mean of its neighbours.
  const GemmShape between{2048, 1024, 1024, Dtype::kBf16};
  EXPECT_NEAR(estimate_gemm(gpu, between).time.seconds(),
              ideal_gemm_roofline(gpu, between).time.seconds() / std::sqrt(0.5 * 0.8), 1e-12);
  // Beyond the grid the nearest edge's efficiency applies to the shape's own roofline, on either side.
  const GemmShape beyond{8192, 1024, 1024, Dtype::kBf16};
  EXPECT_EQ(estimate_gemm(gpu, beyond).source, GemmSource::kTableEdge);
  EXPECT_NEAR(estimate_gemm(gpu, beyond).time.seconds(), ideal_gemm_roofline(gpu, beyond).time.seconds() / 0.8, 1e-12);
  const GemmShape below{512, 4096, 256, Dtype::kBf16};
  EXPECT_EQ(estimate_gemm(gpu, below).source, GemmSource::kTableEdge);
  EXPECT_NEAR(estimate_gemm(gpu, below).time.seconds(), ideal_gemm_roofline(gpu, below).time.seconds() / 0.5, 1e-12);
  // fp16 reads the bf16 table when the two peaks agree, and not otherwise.
  gpu.peak_dense[Dtype::kFp16] = gpu.peak(Dtype::kBf16);
  const GemmShape half{4096, 1024, 1024, Dtype::kFp16};
  EXPECT_EQ(estimate_gemm(gpu, half).source, GemmSource::kTable);
  EXPECT_NEAR(estimate_gemm(gpu, half).time.seconds(), ideal_gemm_roofline(gpu, half).time.seconds() / 0.8, 1e-12);
  GpuSpec unequal = gpu;
  unequal.peak_dense[Dtype::kFp16] = FlopRate::per_second(2 * gpu.peak(Dtype::kBf16).per_second());
  EXPECT_EQ(estimate_gemm(unequal, half).source, GemmSource::kRoofline);
  // For a dtype the table lacks, the roofline with default efficiencies answers.
  EXPECT_EQ(estimate_gemm(gpu, {4096, 1024, 1024, Dtype::kFp8}).source, GemmSource::kRoofline);
}

TEST(GemmModel, RejectsNonPositiveSizesAndMissingDtype) {
  const GpuSpec gpu = round_gpu();
  EXPECT_THROW((void)estimate_gemm(gpu, {0, 1, 1, Dtype::kBf16}), InputError);
  EXPECT_THROW((void)estimate_gemm(gpu, {1, 1, 1, Dtype::kFp4}), InputError);
}

}  // namespace
}  // namespace ctwin::compute
