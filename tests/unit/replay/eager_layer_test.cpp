// A stack with "layer_kernels": "eager" (models/stacks/pytorch-eager.json) prices the kernels eager
// PyTorch autograd runs beyond the fused ones: the difference between the eager and the fused layer
// is, to the picosecond's rounding, the extra bytes over the profile's bandwidth plus the extra
// launches (compute/memory_kernels.hpp's table), and nothing else moves.

#include <gtest/gtest.h>

#include <map>

#include "ctwin/core/error.hpp"
#include "ctwin/replay/layer_times.hpp"

namespace ctwin::replay {
namespace {

TEST(EagerLayer, AddsExactlyTheUnfusedKernelsBytesAndLaunches) {
  LayerQuery query;
  query.model = "llama3-8b";
  query.gpu = "h100-sxm";  // no non_gemm: 80 % of 3.35 TB/s, 2 us per launch
  query.seq_len = 4096;
  const LayerPrediction fused = predict_layer(query, CTWIN_SOURCE_DIR);
  query.stack = "pytorch-eager";
  const LayerPrediction eager = predict_layer(query, CTWIN_SOURCE_DIR);

  const double t = 4096, h = 4096, ffn = 14336, e = 2;  // bf16
  const double rotary = t * (32 + 8) * 128, qkv_cols = (32 + 2 * 8) * 128;
  const double params = qkv_cols * h + h * h + 2 * ffn * h + ffn * h + 2 * h;
  const double bandwidth = 0.8 * 3.35e12, launch = 2e-6;
  const double forward = ((10 - 2) * e * rotary + (5 - 3) * e * t * ffn) / bandwidth + (9 + 1) * launch;
  const double backward = ((15 - 2) * e * rotary + (13 - 5) * e * t * ffn + 2 * e * t * qkv_cols + 3 * e * params) / bandwidth +
                          (17 + 3 + 1 + 6) * launch;
  EXPECT_NEAR(eager.forward_ms - fused.forward_ms, forward * 1e3, 1e-6);
  EXPECT_NEAR(eager.backward_ms - fused.backward_ms, backward * 1e3, 1e-6);

  // The GEMMs, attention, norms and residuals are the fused layer's own.
  std::map<std::string, KernelTime> by_name;
  for (const auto& k : fused.kernels) by_name[k.name] = k;
  for (const auto& k : eager.kernels) {
    if (k.name.starts_with("rotary") || k.name.starts_with("swiglu") || k.name == "qkv_grad_concat" ||
        k.name == "grad_accumulate") {
      continue;
    }
    ASSERT_TRUE(by_name.contains(k.name)) << k.name;
    EXPECT_DOUBLE_EQ(k.forward_us, by_name[k.name].forward_us) << k.name;
    EXPECT_DOUBLE_EQ(k.backward_us, by_name[k.name].backward_us) << k.name;
  }
}

}  // namespace
}  // namespace ctwin::replay
