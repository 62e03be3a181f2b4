#pragma once
// The software stack a run trains with (a scenario's "stack": a file under models/stacks/, a path,
// or an inline object): framework and version, fp8 recipe, MoE token dispatcher, CUDA graphs, and
// the costs these bring to an MoE block beyond its kernels as the GPU profile times them. Each cost
// is a mechanism with its source (docs/input-formats.md "Stack profile", docs/moe-kernels.md
// "The software stack"):
//   quantize          fp8 casts of the expert GEMMs' inputs that the GPU profile's fp8 GEMM table
//                     (TensorRT-LLM's per-tensor dynamic cast of the activation) does not already
//                     time: extra HBM bytes per element of each forward input and each backward
//                     output gradient, and launches per tensor. Current scaling (Transformer
//                     Engine's Float8CurrentScaling) needs the tensor's amax before it casts (an
//                     extra read) and writes the transposed copy the backward GEMMs use; MXFP8
//                     (Float8 with 32-element E8M0 block scales, OCP MX v1.0) writes row- and
//                     column-wise copies with their scales and needs no amax pass.
//   pad_rows          rows per expert rounded up to a multiple (fp8 GEMMs need M % 16, MXFP8 M % 32:
//                     Megatron-Core's --moe-router-padding-for-fp8).
//   aux_loss          the router's load-balancing loss kernels, forward and backward launches.
//   dispatcher        alltoall (Megatron-Core's MoEAlltoAllTokenDispatcher: 3 preprocessing
//                     kernels, a device-to-host copy of the tokens per expert) or deepep (DeepEP's
//                     normal kernels: 1 notify kernel, the host still waits for the receive counts);
//                     dispatcher_sync: whether the host waits for the GPU once per MoE layer forward.
//   host_after_sync   host work between that wait and the next kernel's launch (the dispatcher's
//                     and experts' Python): the GPU idles for all of it.
//   expert_time_scale the MoE block's kernels (grouped GEMMs, activation, permutation, casts) run
//                     this much slower than the profile times them apart.
//   per_expert_overhead  GPU time per local expert that received rows, per expert GEMM (fc1 and fc2
//                     forward, their data and weight gradients): Transformer Engine's grouped linear
//                     issues one cuBLAS GEMM per local expert (multi_stream_cublas_gemm, round-robin
//                     on 4 streams; in fp8 one quantize per expert too), each with its own launch gap
//                     and part-empty last wave, which the profile's rows model (one grouped kernel,
//                     compute/moe_kernels.hpp) does not carry. Added after expert_time_scale, not
//                     scaled by it, so one prices rows and the other experts.
//   expert_gemms      "grouped" (default: the profile's rows model, one grouped kernel) or "per_expert"
//                     (Transformer Engine's loop: each local expert's GEMM at its own rows from the GEMM
//                     table, one after another, compute::estimate_grouped_gemm; TE spreads them over 4
//                     streams, so this is the slow bound of that path).
//   imbalance         learned routing's max/mean tokens per expert (1: force-balanced, as the
//                     published benchmarks run); a scenario's moe_runtime.imbalance overrides it.
//   layer_kernels     "fused" (default: one kernel per rotary, activation, norm, as Transformer Engine
//                     and Megatron-Core's fusions run them) or "eager" (PyTorch eager autograd, as
//                     validation/collect/layer_bench.py runs a layer: rotary and SwiGLU as several
//                     elementwise kernels, autograd's cat of the q, k, v grads, and each weight's grad
//                     added into the one it holds; compute/memory_kernels.hpp counts their bytes).
// A scenario without "stack" runs none of these: today's behaviour, to the bit.

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ctwin/core/units.hpp"
#include "ctwin/workload/parallel_config.hpp"

namespace ctwin::replay {

enum class PrecisionRecipe { kBf16, kFp8CurrentScaling, kMxfp8 };
enum class TokenDispatcher { kAlltoall, kDeepEp };
enum class LayerKernels { kFused, kEager };
enum class ExpertGemms { kGrouped, kPerExpert };

struct StackProfile {
  std::string name;
  std::string framework;  ///< "Megatron-Core + Transformer Engine"
  std::string version;    ///< the framework's release the costs were read from
  PrecisionRecipe recipe = PrecisionRecipe::kBf16;
  TokenDispatcher dispatcher = TokenDispatcher::kAlltoall;
  bool cuda_graphs = false;
  bool permute_fusion = true;
  LayerKernels layer_kernels = LayerKernels::kFused;
  bool dispatcher_sync = true;
  double quantize_bytes_forward = 0;   ///< extra HBM bytes per element of each forward fp8 input
  double quantize_bytes_backward = 0;  ///< per element of each output gradient cast in the backward
  int quantize_launches = 0;           ///< kernels per quantized tensor
  std::int64_t pad_rows = 1;           ///< rows per expert rounded up to this multiple
  int aux_loss_launches_forward = 0;
  int aux_loss_launches_backward = 0;
  SimTime host_after_sync;
  double expert_time_scale = 1.0;
  SimTime per_expert_overhead;  ///< per active local expert and expert GEMM
  ExpertGemms expert_gemms = ExpertGemms::kGrouped;
  double imbalance = 1.0;
  std::vector<std::string> fitted;   ///< which of the fields above were fitted (at most three)
  std::vector<std::string> sources;  ///< where each mechanism's cost comes from

  /// Preprocessing kernels before the dispatcher's host wait (token counts, their exchange, the copy).
  [[nodiscard]] int dispatch_launches() const { return dispatcher == TokenDispatcher::kDeepEp ? 1 : 3; }
};

/// Reads a stack document strictly; `source` names it in messages (InputError naming the field).
[[nodiscard]] StackProfile parse_stack_profile(const nlohmann::json& document, const std::string& source);

/// A scenario's "stack": an inline object, a file (next to the scenario, then under `repo_root`),
/// or a bundled name (models/stacks/<name>.json). Checks the recipe against `precision`.
[[nodiscard]] StackProfile read_scenario_stack(const nlohmann::json& given, const std::string& source,
                                               const std::filesystem::path& dir, const std::filesystem::path& repo_root,
                                               workload::Precision precision);

[[nodiscard]] std::string recipe_name(PrecisionRecipe recipe);

}  // namespace ctwin::replay
