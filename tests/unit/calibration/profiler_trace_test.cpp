// The profiler trace reader (issue 41 item 3): kernel names into classes, a hand-made Kineto trace
// and an nsys stats CSV summed by class and phase with figures chosen to be checked by hand, and
// the bad input it must refuse with the file and the event named.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "ctwin/calibration/kernel_class.hpp"
#include "ctwin/calibration/profiler_trace.hpp"
#include "ctwin/core/error.hpp"

namespace ctwin::calibration {
namespace {

TEST(KernelClass, RealKernelAndTwinOpNamesFallInTheirClass) {
  const std::vector<std::pair<std::string, KernelClass>> cases = {
      {"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64", KernelClass::kGemm},
      {"nvjet_tst_192x192_64x4_1x2_h_bz_coopB_TNT", KernelClass::kGemm},
      {"void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm>", KernelClass::kGemm},
      {"qkv_gemm", KernelClass::kGemm},
      {"mlp_down_wgrad", KernelClass::kGemm},
      {"attention_values_gemm", KernelClass::kGemm},
      {"expert_fc1_grouped_gemm", KernelClass::kGroupedGemm},
      {"expert_fc2_dgrad", KernelClass::kGroupedGemm},
      {"cutlass_grouped_gemm_kernel", KernelClass::kGroupedGemm},
      {"flash_fwd_kernel<Flash_fwd_kernel_traits<128>>", KernelClass::kAttention},
      {"flash_attention_bwd", KernelClass::kAttention},
      {"cudnn_generated_fort_native_sdpa_sm90", KernelClass::kAttention},
      {"void transformer_engine::cast_transpose_kernel<fp8e4m3>", KernelClass::kQuantizeCast},
      {"expert_fc1_fp8_cast", KernelClass::kQuantizeCast},
      {"moe_permute", KernelClass::kPermute},
      {"void at::native::radixSortKVInPlace", KernelClass::kPermute},
      {"multi_tensor_apply_kernel<AdamFunctor>", KernelClass::kOptimizer},
      {"adam", KernelClass::kOptimizer},
      {"void at::native::vectorized_elementwise_kernel<4, silu>", KernelClass::kNormElementwise},
      {"rmsnorm_fwd_kernel", KernelClass::kNormElementwise},
      {"router_topk", KernelClass::kNormElementwise},
      {"attention_dropout", KernelClass::kNormElementwise},
      {"ncclDevKernel_AllReduce_Sum_bf16_RING_LL", KernelClass::kAllReduce},
      {"ncclKernel_ReduceScatter_RING_SIMPLE_Sum_bf16", KernelClass::kReduceScatter},
      {"ncclDevKernel_AllGather_RING_LL", KernelClass::kAllGather},
      {"ncclDevKernel_SendRecv", KernelClass::kSendRecv},
      {"tp_all_gather", KernelClass::kAllGather},
      {"dp_grad_reduce", KernelClass::kAllReduce},
      {"ep_dispatch_all_to_all", KernelClass::kAllToAll},
      {"pp_send_activation", KernelClass::kSendRecv},
      {"moe_dispatch_sync", KernelClass::kOther},
      {"some_kernel_nobody_knows", KernelClass::kOther},
  };
  for (const auto& [name, expected] : cases) {
    EXPECT_EQ(kernel_class_name(classify_kernel(name)), kernel_class_name(expected)) << name;
  }
}

std::filesystem::path write_file(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / ("ctwin-trace-" + std::to_string(::getpid()) + "-" + name);
  std::ofstream(path) << text;
  return path;
}

nlohmann::json complete(const std::string& name, const std::string& cat, double ts, double dur, int pid,
                        nlohmann::json args = nlohmann::json::object()) {
  return {{"ph", "X"}, {"name", name}, {"cat", cat}, {"ts", ts}, {"dur", dur}, {"pid", pid}, {"tid", 1}, {"args", args}};
}

// One profiled step of one layer on device 0: the forward's kernels found through their launches'
// correlation ids inside CPU ranges, the backward's through a GPU-side range, the optimizer's
// outside the layers.
nlohmann::json kineto_trace() {
  nlohmann::json events = nlohmann::json::array();
  events.push_back(complete("ProfilerStep#3", "user_annotation", 0, 1000, 100));
  events.push_back(complete("layer0/forward", "user_annotation", 10, 100, 100));
  events.push_back(complete("optimizer", "user_annotation", 500, 100, 100));
  events.push_back(complete("cudaLaunchKernel", "cuda_runtime", 20, 5, 100, {{"correlation", 1}}));
  events.push_back(complete("cudaLaunchKernel", "cuda_runtime", 30, 5, 100, {{"correlation", 2}}));
  events.push_back(complete("cudaLaunchKernel", "cuda_runtime", 510, 5, 100, {{"correlation", 3}}));
  events.push_back(complete("sm90_xmma_gemm_bf16", "kernel", 200, 40, 0, {{"correlation", 1}}));
  events.push_back(complete("flash_fwd_kernel", "kernel", 240, 25, 0, {{"correlation", 2}}));
  events.push_back(complete("layer0/backward", "gpu_user_annotation", 300, 150, 0));
  events.push_back(complete("nvjet_tst_dgrad", "kernel", 300, 80, 0, {{"correlation", 9}}));
  events.push_back(complete("weird_custom_kernel", "kernel", 380, 7, 0, {{"correlation", 10}}));
  events.push_back(complete("multi_tensor_apply_kernel<Adam>", "kernel", 600, 12, 0, {{"correlation", 3}}));
  events.push_back(complete("Memcpy DtoD", "gpu_memcpy", 620, 3, 0));
  return {{"traceEvents", events}};
}

TEST(ProfilerTrace, KinetoKernelsSumByClassAndThePhaseTheyRanIn) {
  const auto path = write_file("kineto.json", kineto_trace().dump());
  const TraceSummary s = read_profiler_trace(path);
  EXPECT_EQ(s.format, TraceFormat::kKineto);
  EXPECT_EQ(s.devices, 1);
  EXPECT_EQ(s.steps, 1);
  EXPECT_EQ(s.layers, 1);
  EXPECT_DOUBLE_EQ(s.at(KernelClass::kGemm, TracePhase::kForward).us, 40);
  EXPECT_DOUBLE_EQ(s.at(KernelClass::kAttention, TracePhase::kForward).us, 25);
  EXPECT_DOUBLE_EQ(s.at(KernelClass::kGemm, TracePhase::kBackward).us, 80);
  EXPECT_DOUBLE_EQ(s.at(KernelClass::kOther, TracePhase::kBackward).us, 7);
  EXPECT_DOUBLE_EQ(s.at(KernelClass::kOptimizer, TracePhase::kOutsideLayers).us, 12);
  EXPECT_DOUBLE_EQ(s.total_us(), 40 + 25 + 80 + 7 + 12);  // the memcpy is not a kernel
  ASSERT_EQ(s.unclassified.size(), 1u);
  EXPECT_EQ(s.unclassified[0].name, "weird_custom_kernel");
  std::filesystem::remove(path);
}

TEST(ProfilerTrace, MetaFileBesideAKinetoTraceNamesItsModel) {
  const auto path = write_file("with-meta.json", kineto_trace().dump());
  auto meta = path;
  meta.replace_extension(".meta.json");
  std::ofstream(meta) << R"({"model": "llama3-8b", "gpu": "NVIDIA H100 80GB HBM3"})";
  EXPECT_EQ(read_profiler_trace(path).model, "llama3-8b");
  std::filesystem::remove(path);
  std::filesystem::remove(meta);
}

TEST(ProfilerTrace, NsysKernelSummaryCsvSumsEachClass) {
  const auto path = write_file("kern_sum.csv",
                               "Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n"
                               "60.0,6000,3,2000,2000,2000,2000,0,\"void cutlass::Kernel2<gemm, int, float>(Params)\"\n"
                               "30.0,3000,1,3000,3000,3000,3000,0,ncclDevKernel_AllReduce_Sum_bf16_RING_LL\n"
                               "10.0,1000,2,500,500,500,500,0,\"say \"\"hi\"\", kernel\"\n");
  const TraceSummary s = read_profiler_trace(path);
  EXPECT_EQ(s.format, TraceFormat::kNsysCsv);
  EXPECT_DOUBLE_EQ(s.at(KernelClass::kGemm, TracePhase::kOutsideLayers).us, 6);
  EXPECT_EQ(s.at(KernelClass::kGemm, TracePhase::kOutsideLayers).kernels, 3);
  EXPECT_DOUBLE_EQ(s.at(KernelClass::kAllReduce, TracePhase::kOutsideLayers).us, 3);
  ASSERT_EQ(s.unclassified.size(), 1u);
  EXPECT_EQ(s.unclassified[0].name, "say \"hi\", kernel");
  std::filesystem::remove(path);
}

std::string read_error(const std::string& name, const std::string& text) {
  const auto path = write_file(name, text);
  std::string message;
  try {
    (void)read_profiler_trace(path);
  } catch (const InputError& e) {
    message = std::string(e.what()) + " @" + e.source() + " " + e.pointer();
  }
  std::filesystem::remove(path);
  return message;
}

TEST(ProfilerTrace, BadTracesAreRefusedNamingTheFileAndEvent) {
  const std::string whole = kineto_trace().dump();
  EXPECT_NE(read_error("truncated.json", whole.substr(0, whole.size() / 2)).find("truncated.json"), std::string::npos);
  auto negative = kineto_trace();
  negative["traceEvents"][7]["dur"] = -1;
  EXPECT_NE(read_error("negative.json", negative.dump()).find("/traceEvents/7/dur"), std::string::npos);
  nlohmann::json cpu_only = {{"traceEvents", {complete("aten::mm", "cpu_op", 0, 5, 1)}}};
  EXPECT_NE(read_error("cpu-only.json", cpu_only.dump()).find("no GPU kernels"), std::string::npos);
  EXPECT_NE(read_error("empty.json", "").find("empty"), std::string::npos);
  EXPECT_NE(read_error("not-events.json", R"({"traceEvents": 3})").find("/traceEvents"), std::string::npos);
  EXPECT_NE(read_error("table.csv", "a,b\n1,2\n").find("Total Time (ns)"), std::string::npos);
  // A fuzzer's find: an instance count past int64 was converted to it (undefined behaviour).
  const std::string header = "Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n";
  EXPECT_NE(read_error("huge.csv", header + "22.0,6000,1e300,2000,2000,2000,2000,0,gemm\n").find("line 2"), std::string::npos);
  std::string many = header;
  for (int i = 0; i < 1001; ++i) many += "1.0,10,1e12,1,1,1,1,0,gemm\n";
  EXPECT_NE(read_error("many.csv", many).find("in all"), std::string::npos);
}

}  // namespace
}  // namespace ctwin::calibration
