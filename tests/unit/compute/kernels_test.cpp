// Oracles for the non-GEMM kernels: FlashAttention FLOPs in closed form, memory-bound kernels
// as bytes over bandwidth, grouped GEMM as the sum of its experts.

#include <gtest/gtest.h>

#include <algorithm>

#include "ctwin/compute/flash_attention.hpp"
#include "ctwin/compute/gemm_model.hpp"
#include "ctwin/compute/grouped_gemm.hpp"
#include "ctwin/compute/memory_kernels.hpp"
#include "ctwin/core/error.hpp"
#include "test_gpu.hpp"

namespace ctwin::compute {
namespace {

using testing::round_gpu;

TEST(FlashAttention, FlopsMatchTheFlashAttention2Count) {
  // FlashAttention-2 benchmarks: 4 · seqlen² · head_dim · heads per sequence forward, halved
  // when causal, backward 2.5x forward.
  AttentionShape shape{.batch = 2, .seq_q = 4096, .seq_kv = 4096, .heads_q = 32, .heads_kv = 32, .head_dim = 128,
                       .causal = false};
  const double full = 4.0 * 2 * 32 * 4096.0 * 4096.0 * 128;
  EXPECT_DOUBLE_EQ(flash_attention_forward_flops(shape).count(), full);
  EXPECT_DOUBLE_EQ(flash_attention_backward_flops(shape).count(), 2.5 * full);
  shape.causal = true;
  EXPECT_DOUBLE_EQ(flash_attention_forward_flops(shape).count(), full / 2);
}

// A window of W keys: S·W − W²/2 query-key pairs under the causal mask (the continuous count the
// causal S²/2 uses), S·W without it; a window as long as the sequence changes nothing, and the
// kernel still moves the same Q, K, V and O.
TEST(FlashAttention, SlidingWindowCountsTheBand) {
  AttentionShape shape{.batch = 2, .seq_q = 4096, .seq_kv = 4096, .heads_q = 64, .heads_kv = 8, .head_dim = 64};
  const AttentionShape full = shape;
  shape.window = 128;
  const double per_pair = 4.0 * 2 * 64 * 64;
  EXPECT_DOUBLE_EQ(flash_attention_forward_flops(shape).count(), per_pair * (4096.0 * 128 - 128.0 * 128 / 2));
  EXPECT_DOUBLE_EQ(flash_attention_backward_flops(shape).count(), 2.5 * flash_attention_forward_flops(shape).count());
  shape.causal = false;
  EXPECT_DOUBLE_EQ(flash_attention_forward_flops(shape).count(), per_pair * 4096.0 * 128);
  shape.causal = true;
  EXPECT_EQ(flash_attention_forward_bytes(shape).count(), flash_attention_forward_bytes(full).count());
  shape.window = 4096;
  EXPECT_DOUBLE_EQ(flash_attention_forward_flops(shape).count(), flash_attention_forward_flops(full).count());
  // Against a token-by-token count: query i sees min(i + 1, W) keys; the continuous form is W/2 pairs
  // per sequence and head short, 0.01 % here.
  double pairs = 0;
  for (int i = 0; i < 4096; ++i) pairs += std::min(i + 1, 128);
  shape.window = 128;
  EXPECT_NEAR(flash_attention_forward_flops(shape).count() / (per_pair * pairs), 1.0, 1e-3);
  shape.seq_q = 2048;
  EXPECT_THROW((void)estimate_flash_attention_forward(round_gpu(), shape), InputError);
}

TEST(FlashAttention, GqaKeepsFlopsAndCutsBytes) {
  AttentionShape mha{.batch = 1, .seq_q = 8192, .seq_kv = 8192, .heads_q = 64, .heads_kv = 64, .head_dim = 128};
  AttentionShape gqa = mha;
  gqa.heads_kv = 8;
  EXPECT_EQ(flash_attention_forward_flops(mha).count(), flash_attention_forward_flops(gqa).count());
  // Forward: Q and O are 2 · 8192·64·128 elements; K and V shrink from 64 to 8 heads.
  const double q = 8192.0 * 64 * 128;
  const double lse = 64.0 * 8192 * 4;
  EXPECT_EQ(flash_attention_forward_bytes(mha).count(), static_cast<std::int64_t>((2 * q + 2 * q) * 2 + lse));
  EXPECT_EQ(flash_attention_forward_bytes(gqa).count(), static_cast<std::int64_t>((2 * q + 2 * q / 8) * 2 + lse));
}

TEST(FlashAttention, LongSequenceIsComputeBoundAtItsEfficiency) {
  const GpuSpec gpu = round_gpu();
  const AttentionShape shape{.batch = 1, .seq_q = 16384, .seq_kv = 16384, .heads_q = 32, .heads_kv = 8, .head_dim = 128};
  const KernelEstimate forward = estimate_flash_attention_forward(gpu, shape);
  EXPECT_FALSE(forward.memory_bound);
  EXPECT_NEAR(forward.time.seconds(), 2e-6 + flash_attention_forward_flops(shape).count() / (1e15 * 0.6), 1e-12);
  const KernelEstimate backward = estimate_flash_attention_backward(gpu, shape);
  EXPECT_NEAR(backward.time.seconds(), 2e-6 + flash_attention_backward_flops(shape).count() / (1e15 * 0.4), 1e-12);
}

TEST(FlashAttention, RejectsHeadsThatDoNotGroup) {
  const AttentionShape shape{.batch = 1, .seq_q = 128, .seq_kv = 128, .heads_q = 12, .heads_kv = 5, .head_dim = 64};
  EXPECT_THROW((void)estimate_flash_attention_forward(round_gpu(), shape), InputError);
}

TEST(MemoryKernels, TimeIsBytesOverAchievedBandwidth) {
  const GpuSpec gpu = round_gpu();  // 1 TB/s at 50%: 0.5 bytes per picosecond
  const std::int64_t elements = 8192LL * 8192;
  const KernelEstimate norm = estimate_memory_kernel(gpu, {MemoryKernel::kRmsNorm, elements, Dtype::kBf16, false});
  EXPECT_EQ(norm.bytes.count(), elements * 4);  // read and write 2 bytes each
  EXPECT_NEAR(norm.time.seconds(), 2e-6 + elements * 4 / 0.5e12, 1e-12);
  const KernelEstimate swiglu_bwd = estimate_memory_kernel(gpu, {MemoryKernel::kSwiGlu, elements, Dtype::kBf16, true});
  EXPECT_EQ(swiglu_bwd.bytes.count(), elements * 10);
  const KernelEstimate adam = estimate_memory_kernel(gpu, {MemoryKernel::kAdamUpdate, 1'000'000'000, Dtype::kBf16, false});
  EXPECT_NEAR(adam.time.seconds(), 2e-6 + 30e9 / 0.5e12, 1e-12);
  // Dynamic fp8 scaling is two kernels: amax, then the cast.
  const KernelEstimate cast = estimate_memory_kernel(gpu, {MemoryKernel::kFp8Cast, elements, Dtype::kBf16, false});
  EXPECT_NEAR(cast.time.seconds(), 4e-6 + elements * 5 / 0.5e12, 1e-12);
  EXPECT_THROW((void)memory_kernel_bytes({MemoryKernel::kAdamUpdate, 1, Dtype::kBf16, true}), InputError);
}

TEST(GroupedGemm, IsOneLaunchPlusEachExpertsWork) {
  const GpuSpec gpu = round_gpu();
  const GroupedGemmShape shape{{4096, 0, 1024, 2048}, 4096, 2048, Dtype::kBf16};
  SimTime expected = gpu.launch_overhead;
  for (const std::int64_t m : {4096, 1024, 2048}) expected += estimate_gemm(gpu, {m, 4096, 2048, Dtype::kBf16}).time - gpu.launch_overhead;
  const GroupedGemmEstimate estimate = estimate_grouped_gemm(gpu, shape);
  EXPECT_EQ(estimate.time, expected);
  EXPECT_EQ(estimate.active_experts, 3);
  EXPECT_DOUBLE_EQ(estimate.flops.count(), 2.0 * (4096 + 1024 + 2048) * 4096 * 2048);
}

}  // namespace
}  // namespace ctwin::compute
