// The non-GEMM kernel model of a GPU profile (GpuSpec::non_gemm): memory-bound classes as bytes over
// their measured fraction of HBM plus the launch overhead, attention as FLOPs over its measured
// fraction of the peak plus its fixed cost (closed forms on a round GPU); a profile without it prices
// as before; the reader wants every field and a source; the eager stack's kernels move the bytes
// compute/memory_kernels.hpp counts.

#include <gtest/gtest.h>

#include <filesystem>

#include "ctwin/compute/flash_attention.hpp"
#include "ctwin/compute/memory_kernels.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/core/json_reader.hpp"
#include "test_gpu.hpp"

namespace ctwin::compute {
namespace {

using testing::round_gpu;

GpuSpec gpu_with_measured_classes() {
  GpuSpec gpu = round_gpu();
  gpu.non_gemm = NonGemmCosts{.memory_efficiency = 0.9,
                              .norm_efficiency = 0.6,
                              .attention_fwd_efficiency = 0.625,
                              .attention_bwd_efficiency = 0.5,
                              .attention_fwd_fixed = SimTime::from_seconds(70e-6),
                              .attention_bwd_fixed = SimTime::from_seconds(250e-6)};
  return gpu;
}

TEST(NonGemm, MemoryClassesAreBytesOverTheirMeasuredBandwidthPlusLaunches) {
  const GpuSpec gpu = gpu_with_measured_classes();
  // 1e9 bf16 elements: a residual add moves 6 GB, an RMSNorm forward 4 GB (round GPU: 1 TB/s, 2 us launch).
  EXPECT_NEAR(estimate_memory_kernel(gpu, {MemoryKernel::kResidualAdd, 1'000'000'000}).time.seconds(), 6e-3 / 0.9 + 2e-6, 1e-12);
  EXPECT_NEAR(estimate_memory_kernel(gpu, {MemoryKernel::kRmsNorm, 1'000'000'000}).time.seconds(), 4e-3 / 0.6 + 2e-6, 1e-12);
  EXPECT_NEAR(estimate_memory_kernel(gpu, {MemoryKernel::kLayerNorm, 1'000'000'000, Dtype::kBf16, true}).time.seconds(),
              6e-3 / 0.6 + 2e-6, 1e-12);
  // Without the measured classes: efficiency.hbm (0.5 on the round GPU) for all, as before.
  EXPECT_NEAR(estimate_memory_kernel(round_gpu(), {MemoryKernel::kRmsNorm, 1'000'000'000}).time.seconds(), 4e-3 / 0.5 + 2e-6, 1e-12);
}

TEST(NonGemm, AttentionIsFlopsOverItsMeasuredPeakPlusItsFixedCost) {
  const GpuSpec gpu = gpu_with_measured_classes();
  const AttentionShape shape{.batch = 1, .seq_q = 8192, .seq_kv = 8192, .heads_q = 32, .heads_kv = 8, .head_dim = 128};
  const double forward = flash_attention_forward_flops(shape).count();
  EXPECT_NEAR(estimate_flash_attention_forward(gpu, shape).time.seconds(), forward / (0.625e15) + 70e-6, 1e-12);
  EXPECT_NEAR(estimate_flash_attention_backward(gpu, shape).time.seconds(), 2.5 * forward / 0.5e15 + 250e-6, 1e-12);
  EXPECT_NEAR(estimate_flash_attention_forward(round_gpu(), shape).time.seconds(), forward / 0.6e15 + 2e-6, 1e-12);
}

// Eager autograd's kernels (memory_kernels.hpp's table): bytes per output element and launches.
TEST(NonGemm, UnfusedKernelsMoveTheBytesAutogradsFormulasSay) {
  const std::int64_t n = 1'000'000;
  const auto bytes = [n](MemoryKernel kind, bool backward) {
    return static_cast<double>(memory_kernel_bytes({kind, n, Dtype::kBf16, backward}).count()) / (2.0 * n);
  };
  EXPECT_DOUBLE_EQ(bytes(MemoryKernel::kRotaryUnfused, false), 10);  // neg 1, cat 2, two muls 2 each, add 3
  EXPECT_DOUBLE_EQ(bytes(MemoryKernel::kRotaryUnfused, true), 15);
  EXPECT_DOUBLE_EQ(bytes(MemoryKernel::kSwiGluUnfused, false), 5);  // silu 2, mul 3
  EXPECT_DOUBLE_EQ(bytes(MemoryKernel::kSwiGluUnfused, true), 13);
  EXPECT_DOUBLE_EQ(bytes(MemoryKernel::kConcat, true), 2);
  EXPECT_DOUBLE_EQ(bytes(MemoryKernel::kGradAccumulate, true), 3);
  EXPECT_EQ(memory_kernel_launches({MemoryKernel::kRotaryUnfused, n}), 10);
  EXPECT_EQ(memory_kernel_launches({MemoryKernel::kRotaryUnfused, n, Dtype::kBf16, true}), 18);
  EXPECT_EQ(memory_kernel_launches({MemoryKernel::kSwiGluUnfused, n, Dtype::kBf16, true}), 4);
  // The fused kinds they stand for: 2 and 3 bytes per element forward, one launch.
  EXPECT_DOUBLE_EQ(bytes(MemoryKernel::kRotary, false), 2);
  EXPECT_DOUBLE_EQ(bytes(MemoryKernel::kSwiGlu, false), 3);
  const GpuSpec gpu = gpu_with_measured_classes();
  EXPECT_NEAR(estimate_memory_kernel(gpu, {MemoryKernel::kSwiGluUnfused, n, Dtype::kBf16, true}).time.seconds(),
              13 * 2.0 * n / 0.9e12 + 4 * 2e-6, 1e-12);
}

nlohmann::json profile_with_non_gemm() {
  nlohmann::json document = load_json_file(std::filesystem::path(CTWIN_SOURCE_DIR) / "models/gpus/h100-sxm.json");
  document["non_gemm"] = {{"memory_efficiency", 0.9},         {"norm_efficiency", 0.6},
                          {"attention_fwd_efficiency", 0.6},  {"attention_fwd_fixed", "70us"},
                          {"attention_bwd_efficiency", 0.5},  {"attention_bwd_fixed", "250us"}};
  document["sources"]["non_gemm"] = "a test";
  return document;
}

std::string non_gemm_profile_error(const nlohmann::json& document) {
  try {
    (void)parse_gpu_spec(document, "gpu.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "accepted";
}

TEST(NonGemm, TheReaderWantsEveryFieldASourceAndSaneValues) {
  EXPECT_EQ(non_gemm_profile_error(profile_with_non_gemm()), "accepted");
  EXPECT_NEAR(parse_gpu_spec(profile_with_non_gemm(), "gpu.json").non_gemm->attention_bwd_fixed.seconds(), 250e-6, 1e-15);
  nlohmann::json d = profile_with_non_gemm();
  d["non_gemm"].erase("norm_efficiency");
  EXPECT_NE(non_gemm_profile_error(d).find("/non_gemm/norm_efficiency"), std::string::npos) << non_gemm_profile_error(d);
  d = profile_with_non_gemm();
  d["sources"].erase("non_gemm");
  EXPECT_NE(non_gemm_profile_error(d).find("non_gemm"), std::string::npos) << non_gemm_profile_error(d);
  d = profile_with_non_gemm();
  d["non_gemm"]["memory_efficiency"] = 1.5;
  EXPECT_NE(non_gemm_profile_error(d).find("/non_gemm/memory_efficiency"), std::string::npos) << non_gemm_profile_error(d);
  d = profile_with_non_gemm();
  d["non_gemm"]["attention_fwd_fixed"] = 70;
  EXPECT_NE(non_gemm_profile_error(d).find("/non_gemm/attention_fwd_fixed"), std::string::npos) << non_gemm_profile_error(d);
  d = profile_with_non_gemm();
  d["non_gemm"]["attention_bwd_fixed"] = "20ms";
  EXPECT_NE(non_gemm_profile_error(d).find("not a fixed cost"), std::string::npos) << non_gemm_profile_error(d);
  d = profile_with_non_gemm();
  d["non_gemm"]["launch"] = "2us";
  EXPECT_NE(non_gemm_profile_error(d).find("/non_gemm/launch"), std::string::npos) << non_gemm_profile_error(d);
}

}  // namespace
}  // namespace ctwin::compute
