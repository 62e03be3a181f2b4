#pragma once
// Memory per GPU of one training step: model states (weights, gradients, optimizer), activations
// of the micro-batches in flight, embedding and logits buffers, fp8 weight copies and a fixed
// framework overhead. The worst pipeline stage is reported.
//
// Model states, per parameter held by the GPU (Rajbhandari et al., "ZeRO", SC'20, section 3.1:
// mixed-precision Adam keeps 2 + 2 + 12 = 16 bytes, K = 12 being the fp32 master copy and two
// moments):
//   weights 2 B (bf16/fp16); gradients 4 B when the framework keeps fp32 main gradients (Megatron-LM
//   does by default: its theoretical_memory_usage counts 18 B/param, 6 + 12/dp with the
//   distributed optimizer), else 2 B; optimizer 12 B.
//   ZeRO-1 / distributed optimizer divides the optimizer by the data-parallel group, ZeRO-2 also
//   the gradients, ZeRO-3 (FSDP) also the weights, plus two layers' unsharded weights gathered
//   at a time (the layer in use and the prefetched next one). Megatron's group is dp·cp for
//   dense parameters and expert_dp = tp·cp·dp/(ep·expert_tp) for expert parameters.
// Parameters held: a stage's layers (non-expert parts and shared experts / tp, routed experts /
// (ep·expert_tp)), the embedding on the first stage, the output projection and final norm on the
// last (a tied embedding is copied there when pp > 1, as Megatron does).
// Activations (activation_memory.hpp per layer) × layers per stage × micro-batches in flight:
//   GPipe: all m; 1F1B: min(m, pp − r) on rank r (pp on the first stage, Korthikanti eq. 4: the
//   first stage holds L layers' worth); interleaved: Megatron's warm-up count
//   min(m·v, 2(pp − r − 1) + (v − 1)·pp + 1) chunks of L/(pp·v) layers, which for r = 0 is
//   pp·(1 + (pp − 1)/(pp·v)) stages' worth (theoretical_memory_usage's interleaving penalty).
//   Full recompute keeps one layer's complete activations live while it recomputes.
//   First stage: token ids (8 B per token) and the embedding dropout mask per micro-batch in
//   flight; last stage: 4sbh/t·(1 + V/h) for the final norm, logits and loss (Korthikanti §4.3).
// fp8: a 1-byte copy of every GEMM weight (Transformer Engine caches the fp8 cast per step);
//   activations are counted at 16 bits.
// Overhead: CUDA context, NCCL buffers and allocator slack, a constant (default 3 GiB: an
//   assumption, not a measurement; set MemoryOptions::overhead).

#include <cstdint>
#include <vector>

#include "ctwin/compute/gpu_spec.hpp"
#include "ctwin/core/units.hpp"
#include "ctwin/workload/model_spec.hpp"
#include "ctwin/workload/parallel_config.hpp"

namespace ctwin::workload {

struct MemoryOptions {
  bool fp32_gradients = true;
  bool flash_attention = true;
  Bytes overhead = Bytes(std::int64_t{3} << 30);
};

struct MemoryBreakdown {
  std::int64_t stage = 0;           ///< pipeline rank reported: the one that needs the most
  double parameters = 0;            ///< parameters held (before ZeRO-3 sharding)
  double in_flight = 0;             ///< micro-batches of activations held, in whole-stage units
  Bytes weights;
  Bytes gradients;
  Bytes optimizer;
  Bytes activations;
  Bytes fp8_buffers;
  Bytes overhead;
  [[nodiscard]] Bytes total() const {
    return weights + gradients + optimizer + activations + fp8_buffers + overhead;
  }
};

/// Bytes of model states for `parameters` held by a GPU sharded over `shards` data-parallel ranks.
struct ModelStateBytes {
  double weights = 0;
  double gradients = 0;
  double optimizer = 0;
  [[nodiscard]] double total() const { return weights + gradients + optimizer; }
};
[[nodiscard]] ModelStateBytes model_state_bytes(double parameters, std::int64_t shards, int zero_stage,
                                                bool fp32_gradients);

/// The breakdown of every pipeline stage, in stage order; call validate() on the split first.
[[nodiscard]] std::vector<MemoryBreakdown> memory_per_stage(const ModelSpec& model, const ParallelConfig& split,
                                                            std::int64_t gpus, const MemoryOptions& options = {});
/// The stage that needs the most (the lowest stage among equals); `stages` must not be empty.
[[nodiscard]] const MemoryBreakdown& worst_stage(const std::vector<MemoryBreakdown>& stages);
/// worst_stage of memory_per_stage.
[[nodiscard]] MemoryBreakdown memory_per_gpu(const ModelSpec& model, const ParallelConfig& split, std::int64_t gpus,
                                             const MemoryOptions& options = {});

/// Whether the breakdown's total fits the GPU's HBM.
[[nodiscard]] bool fits_memory(const MemoryBreakdown& memory, const compute::GpuSpec& gpu);

}  // namespace ctwin::workload
