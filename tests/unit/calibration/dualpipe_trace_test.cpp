// A real public profiler trace through the reader (issue 41): DeepSeek's DualPipe training
// profile on an H800 (validation/traces/deepseek-v3-train-h800.json). Its kernel families
// (DeepEP, DeepSeek's GEMM library) fall in their classes, its unnumbered "attn(F)"/"mlp(B)"/
// "mlp(W)" ranges give the phases and the layer count, and the committed file sums, class by
// phase, to the totals validation/traces/README.md lists, which a separate script (no ctwin code)
// took from the same file by kernel name.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "ctwin/calibration/kernel_class.hpp"
#include "ctwin/calibration/profiler_trace.hpp"
#include "source_root.hpp"

namespace ctwin::calibration {
namespace {

TEST(DualPipeTrace, DeepSeekKernelFamiliesFallInTheirClass) {
  const std::vector<std::pair<std::string, KernelClass>> cases = {
      {"void dpsk::ep::internode::dispatch<false, 8, false, 8>(int4*, float*, long*)", KernelClass::kAllToAll},
      {"void dpsk::ep::internode::combine<false, 8, __nv_bfloat16, 8, 2, 16, 24>(int4*)", KernelClass::kAllToAll},
      {"void dpsk::ep::internode::notify_dispatch<false, 8>(int const*, long*)", KernelClass::kAllToAll},
      {"void deep_ep::intranode::dispatch<8, 768, 8192>(int4*)", KernelClass::kAllToAll},
      {"void dpsk::ep::cuda::get_dispatch_layout<256, 32, 8>(long const*, int*)", KernelClass::kPermute},
      {"void cutlass::device_kernel<dpsk::grouped_gemm::cuda::m_grouped_fp8_ptp128c::GemmKernel>(x)",
       KernelClass::kGroupedGemm},
      {"void cutlass::device_kernel<dpsk::grouped_gemm::cuda::fp8_ptp128c::GemmKernel>(x)", KernelClass::kGemm},
      {"void cutlass::device_kernel<dpsk::grouped_gemm::cuda::fp8_dptp128c_acc::GemmKernel>(x)", KernelClass::kGemm},
      {"void dpsk::grouped_gemm::cuda::utils::transpose<512, 128, 4, 4>(unsigned char const*)",
       KernelClass::kQuantizeCast},
      {"void at::native::sbtopk::gatherTopK<float, unsigned int, 2, false>(x)", KernelClass::kNormElementwise},
      {"cuda::expand_to_fused_with_scales_impl(int4 const*, int4*, float const*)", KernelClass::kPermute},
      {"void cutlass::device_kernel<flash::FlashAttnBwd<flash::CollectiveMainloopBwd<2>>>(x)",
       KernelClass::kAttention},
  };
  for (const auto& [name, expected] : cases) {
    EXPECT_EQ(kernel_class_name(classify_kernel(name)), kernel_class_name(expected)) << name;
  }
}

nlohmann::json dualpipe_event(const std::string& name, const std::string& cat, double ts, double dur, int correlation) {
  nlohmann::json e = {{"ph", "X"}, {"name", name}, {"cat", cat}, {"ts", ts}, {"dur", dur}, {"pid", 0}, {"tid", 1}};
  if (correlation > 0) e["args"] = {{"correlation", correlation}};
  return e;
}

// Two layers' forward pieces and one backward piece of each kind, as DualPipe names them: "(F)"
// is the forward, "(B)" and "(W)" the backward for inputs and for weights.
TEST(DualPipeTrace, UnnumberedSubLayerRangesGiveThePhaseAndTheLayerCount) {
  nlohmann::json events = nlohmann::json::array();
  const std::vector<std::pair<std::string, double>> ranges = {
      {"attn(F)", 0}, {"mlp(F)", 100}, {"attn(F)", 200}, {"mlp(F)", 300}, {"mlp(B)", 400}, {"attn(W)", 500}};
  int correlation = 0;
  for (const auto& [range, start] : ranges) {
    events.push_back(dualpipe_event(range, "user_annotation", start, 100, 0));
    ++correlation;
    events.push_back(dualpipe_event("cudaLaunchKernel", "cuda_runtime", start + 10, 5, correlation));
    events.push_back(dualpipe_event(range == "attn(W)" ? "fp8_gemm_kernel" : "flash_fwd_kernel", "kernel",
                                    1000 + start, 10 + correlation, correlation));
  }
  const auto path = std::filesystem::temp_directory_path() / ("ctwin-dualpipe-" + std::to_string(::getpid()) + ".json");
  std::ofstream(path) << nlohmann::json{{"traceEvents", events}}.dump();
  const TraceSummary s = read_profiler_trace(path);
  std::filesystem::remove(path);
  EXPECT_EQ(s.layers, 2);  // attn(F) and mlp(F) each recur twice
  EXPECT_DOUBLE_EQ(s.at(KernelClass::kAttention, TracePhase::kForward).us, 11 + 12 + 13 + 14);
  EXPECT_DOUBLE_EQ(s.at(KernelClass::kAttention, TracePhase::kBackward).us, 15);
  EXPECT_DOUBLE_EQ(s.at(KernelClass::kGemm, TracePhase::kBackward).us, 16);
  EXPECT_DOUBLE_EQ(s.at(KernelClass::kGemm, TracePhase::kOutsideLayers).us, 0);
}

TEST(DualPipeTrace, TheCommittedDeepSeekTraceSumsToItsKernelTotals) {
  const TraceSummary s = read_profiler_trace(kRootDir / "validation/traces/deepseek-v3-train-h800.json");
  EXPECT_EQ(s.format, TraceFormat::kKineto);
  EXPECT_EQ(s.devices, 1);
  EXPECT_EQ(s.steps, 1);
  EXPECT_EQ(s.layers, 4);
  double forward = 0, backward = 0, outside = 0;
  for (const KernelClass c : kKernelClasses) {
    forward += s.at(c, TracePhase::kForward).us;
    backward += s.at(c, TracePhase::kBackward).us;
    outside += s.at(c, TracePhase::kOutsideLayers).us;
  }
  // Totals from validation/traces/README.md (every launch sits in a layer range: none outside).
  EXPECT_DOUBLE_EQ(forward, 97363);
  EXPECT_DOUBLE_EQ(backward, 146678);
  EXPECT_DOUBLE_EQ(outside, 0);
  EXPECT_DOUBLE_EQ(s.at(KernelClass::kAllToAll, TracePhase::kForward).us, 61087);
  EXPECT_DOUBLE_EQ(s.at(KernelClass::kAllToAll, TracePhase::kBackward).us, 51943);
  EXPECT_DOUBLE_EQ(s.at(KernelClass::kGroupedGemm, TracePhase::kForward).us, 11591);
  EXPECT_DOUBLE_EQ(s.at(KernelClass::kGroupedGemm, TracePhase::kBackward).us, 11335);
  EXPECT_DOUBLE_EQ(s.at(KernelClass::kAttention, TracePhase::kForward).us, 4948);
  EXPECT_DOUBLE_EQ(s.at(KernelClass::kAttention, TracePhase::kBackward).us, 17017);
  // What no class knows stays under 1 % of the kernel time.
  EXPECT_LT(s.at(KernelClass::kOther, TracePhase::kForward).us + s.at(KernelClass::kOther, TracePhase::kBackward).us,
            0.01 * (forward + backward));
}

}  // namespace
}  // namespace ctwin::calibration
