#include "ctwin/calibration/kernel_class.hpp"

#include <algorithm>
#include <cctype>
#include <initializer_list>
#include <string>

namespace ctwin::calibration {
namespace {

bool contains_any(const std::string& name, std::initializer_list<std::string_view> words) {
  return std::any_of(words.begin(), words.end(), [&](std::string_view w) { return name.find(w) != std::string::npos; });
}

bool ends_with(const std::string& name, std::string_view tail) {
  return name.size() >= tail.size() && name.compare(name.size() - tail.size(), tail.size(), tail) == 0;
}

// NCCL kernels name their collective (ncclDevKernel_AllGather_RING_LL, ncclKernel_ReduceScatter_...);
// the twin's ops name the parallel dimension and the collective (tp_all_gather, ep_dispatch_all_to_all).
KernelClass communication_class(const std::string& name) {
  if (contains_any(name, {"all_to_all", "alltoall"})) return KernelClass::kAllToAll;
  if (contains_any(name, {"reduce_scatter", "reducescatter"})) return KernelClass::kReduceScatter;
  if (contains_any(name, {"all_gather", "allgather"})) return KernelClass::kAllGather;
  // The twin's data-parallel gradient reduction is an all-reduce (a reduce-scatter under the
  // distributed optimizer, which the twin's op name does not say).
  if (contains_any(name, {"all_reduce", "allreduce", "grad_reduce"})) return KernelClass::kAllReduce;
  if (contains_any(name, {"sendrecv", "send", "recv", "broadcast"})) return KernelClass::kSendRecv;
  return KernelClass::kOther;
}

bool is_twin_communication(const std::string& name) {
  return name.rfind("tp_", 0) == 0 || name.rfind("dp_", 0) == 0 || name.rfind("pp_", 0) == 0 ||
         name.rfind("cp_send", 0) == 0 || name.rfind("cp_kv_all_gather", 0) == 0 || name.rfind("cp_dkv", 0) == 0 ||
         name.rfind("ep_", 0) == 0 || name.rfind("expert_tp_", 0) == 0 || name.rfind("expert_dp_", 0) == 0;
}

}  // namespace

std::string_view kernel_class_name(KernelClass c) {
  switch (c) {
    case KernelClass::kGemm: return "gemm";
    case KernelClass::kGroupedGemm: return "grouped_gemm";
    case KernelClass::kAttention: return "attention";
    case KernelClass::kNormElementwise: return "norm_elementwise";
    case KernelClass::kQuantizeCast: return "quantize_cast";
    case KernelClass::kPermute: return "permute";
    case KernelClass::kOptimizer: return "optimizer";
    case KernelClass::kAllReduce: return "nccl_all_reduce";
    case KernelClass::kAllGather: return "nccl_all_gather";
    case KernelClass::kReduceScatter: return "nccl_reduce_scatter";
    case KernelClass::kAllToAll: return "nccl_all_to_all";
    case KernelClass::kSendRecv: return "nccl_send_recv";
    case KernelClass::kOther: return "other";
  }
  return "other";
}

bool is_communication(KernelClass c) {
  return c == KernelClass::kAllReduce || c == KernelClass::kAllGather || c == KernelClass::kReduceScatter ||
         c == KernelClass::kAllToAll || c == KernelClass::kSendRecv;
}

KernelClass classify_kernel(std::string_view raw) {
  std::string name(raw);
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  if (name.find("nccl") != std::string::npos || is_twin_communication(name)) return communication_class(name);
  // DeepEP's expert-parallel kernels (deep_ep::intranode/internode, DeepSeek's own dpsk::ep::
  // internode in its public profiles): dispatch, combine and the notify kernels that exchange the
  // token counts are the MoE all-to-all.
  if (contains_any(name, {"ep::internode::", "ep::intranode::", "ep::internode_ll::"})) return KernelClass::kAllToAll;
  // Transformer Engine's cast/transpose and amax kernels, DeepSeek's batched transposes of FP8
  // bytes for the weight-gradient GEMMs, and the twin's *_fp8_cast ops; an FP8 GEMM's own name
  // says gemm and stays a GEMM.
  if (name.find("gemm") == std::string::npos &&
      contains_any(name, {"cast", "quantize", "amax", "scale_inv", "fp8_transpose", "batched_transpose"})) {
    return KernelClass::kQuantizeCast;
  }
  // DeepSeek's GEMM library keeps its dense kernels and its helpers in a grouped_gemm namespace
  // too; only its m_grouped kernels run the experts. Its transposes lay FP8 operands out for the
  // GEMMs, as Transformer Engine's cast/transpose does.
  if (name.find("grouped_gemm::") != std::string::npos && name.find("m_grouped") == std::string::npos) {
    if (name.find("gemmkernel") != std::string::npos) return KernelClass::kGemm;
    return name.find("transpose") != std::string::npos ? KernelClass::kQuantizeCast : KernelClass::kOther;
  }
  if (contains_any(name, {"grouped_gemm", "groupedgemm", "grouped_mm", "group_gemm", "moe_gemm", "m_grouped"}) ||
      (name.rfind("expert_", 0) == 0 && (ends_with(name, "_dgrad") || ends_with(name, "_wgrad")))) {
    return KernelClass::kGroupedGemm;
  }
  // FlashAttention 3 runs as cutlass::device_kernel<flash::FlashAttnBwd<...>>: its own name wins over CUTLASS's.
  if (contains_any(name, {"flash::", "flashattn"})) return KernelClass::kAttention;
  if (contains_any(name, {"gemm", "nvjet", "xmma", "cutlass", "cublas", "matmul", "wgmma"}) ||
      ends_with(name, "_dgrad") || ends_with(name, "_wgrad")) {
    return KernelClass::kGemm;
  }
  if (contains_any(name, {"dropout"})) return KernelClass::kNormElementwise;
  if (contains_any(name, {"flash", "fmha", "sdpa", "attention", "attn"})) return KernelClass::kAttention;
  // The router's top-k (PyTorch's sbtopk::gatherTopK) is router work, not a token gather.
  if (name.find("topk") != std::string::npos) return KernelClass::kNormElementwise;
  if (contains_any(name, {"permute", "sort", "histogram", "dispatch_layout", "expand_to_fused", "fused_mapping",
                          "count_expert", "index_select", "scatter", "gather", "pad_rows"})) {
    return KernelClass::kPermute;
  }
  if (contains_any(name, {"adam", "multi_tensor", "optimizer", "sgd"})) return KernelClass::kOptimizer;
  if (contains_any(name, {"norm", "elementwise", "vectorized", "reduce", "softmax", "silu", "swiglu", "gelu", "rotary",
                          "rope", "residual", "embedding", "cross_entropy", "bias", "topk", "aux_loss", "add", "mul",
                          "copy", "fill", "activation"})) {
    return KernelClass::kNormElementwise;
  }
  return KernelClass::kOther;
}

}  // namespace ctwin::calibration
