#pragma once
// TransformerEngine's userbuffers: how each tensor-parallel collective of a layer runs inside the
// GEMM that consumes or produces it (Megatron-LM's --tp-comm-overlap, sequence parallel only).
// TE names the overlaps by GEMM; the defaults are TE's own (transformer_engine/pytorch/module/
// base.py, initialize_ub, get_default_config, NVIDIA/TransformerEngine @ d0067d0), and recipes
// pass their own per GEMM (Megatron-Bridge src/megatron/bridge/training/comm_overlap.py).
//  - ring_exchange: the GEMM in tp chunks, each on the shard the ring has brought (a gather) or
//    sending its partial result on (a reduce-scatter); copies on copy engines.
//  - pipeline: the GEMM in num_splits chunks, each chunk's reduce-scatter behind the next chunk.
//  - bulk: a whole collective beside an independent GEMM (the input's re-gather beside the
//    dgrad GEMM, the gradient's reduce-scatter beside the wgrad GEMM).
// With set_sm_margin the GEMM is launched on the SMs the collective's num_sm leave it.

#include <cstdint>
#include <string>

#include "ctwin/core/json_reader.hpp"

namespace ctwin::replay {

enum class UbMethod { kRingExchange, kPipeline, kBulk };

struct UbGemmOverlap {
  UbMethod method = UbMethod::kRingExchange;
  int num_sm = 1;
  int num_splits = 0;  ///< pipeline's chunks (ring_exchange always uses tp)
  bool set_sm_margin = false;
};

/// Per GEMM of a transformer layer, TE's names (fc1 = MLP up, fc2 = MLP down).
struct UbOverlapConfig {
  UbGemmOverlap qkv_fprop, proj_fprop, fc1_fprop, fc2_fprop;
  UbGemmOverlap qkv_dgrad, qkv_wgrad, fc1_dgrad, fc1_wgrad;
  UbGemmOverlap proj_dgrad, fc2_dgrad;

  /// TE's get_default_config: ring_exchange on 1 SM without margin; pipeline in 4 splits and
  /// bulk, both on 16 SMs with the margin.
  [[nodiscard]] static UbOverlapConfig te_defaults();
};

/// Reads overlap.tp_comm_config over TE's defaults: an object per GEMM name with `method` and
/// `num_sm`, `set_sm_margin`, and for pipeline `num_splits`, each defaulting to TE's for that
/// method. A method a GEMM cannot use (a gather by pipeline, a forward by bulk) or any other key
/// (TE's cga_size, aggregate, fp8_buf change how a kernel runs, which the twin does not time) is
/// an InputError naming the field.
[[nodiscard]] UbOverlapConfig read_ub_overlap(JsonObjectReader reader);

/// How long a GEMM of `gemm_s` alone takes beside `overlap`'s collective of `comm_s`. The
/// collective holds num_sm of the `sm_count` SMs while it runs: with set_sm_margin the GEMM is
/// launched on the others and runs on them throughout; without, it runs on the others until the
/// collective ends and on all of them after, min(gemm_s · sm/(sm − n), gemm_s + comm_s · n/sm).
[[nodiscard]] double ub_gemm_seconds(const UbGemmOverlap& overlap, std::int64_t sm_count, double gemm_s, double comm_s);

}  // namespace ctwin::replay
