#pragma once
// The operation graph of one training step on one representative rank of each pipeline stage:
// what every model chunk runs per micro-batch, forward and backward, as kernels (times from the
// compute twin) and collectives (times from CollectiveTimes), plus what runs once per step.
//
// Per transformer layer, forward (b sequences of s tokens, T = b·s; t = TP; SP = sequence
// parallel, whose norms, dropout and residuals work on T/t tokens):
//   norm · [SP: all_gather T·h] · QKV GEMM (T × h → (heads + 2·kv_heads)·d/t) · rotary ·
//   flash attention (heads/t, causal) · proj GEMM · [SP: reduce_scatter, else all_reduce T·h] ·
//   dropout · residual · norm · [all_gather] · MLP up (SwiGLU: 2·ffn/t) · activation · MLP down ·
//   [reduce_scatter / all_reduce] · dropout · residual.
// Backward: each GEMM becomes its data-gradient and weight-gradient GEMMs; flash attention and
// memory-bound kernels their backward kernels. TP communication follows Megatron-LM's linear
// layers (tensor_parallel/layers.py): a column-parallel layer re-gathers its SP input while the
// dgrad GEMM runs and reduce-scatters (SP) or all-reduces its input gradient while the wgrad GEMM
// runs; a row-parallel layer all-gathers the output gradient (SP) before its GEMMs.
// Recompute: selective repeats the attention kernel before its backward, full the whole layer's
// forward (TP communication included).
// First virtual stage: embedding lookup; last: final norm, logits GEMM (vocab/t) and a
// cross-entropy modelled as a GeLU-sized memory kernel over the logits.
// Data parallelism over dp ranks (fp32 gradients, 4 B per parameter): reduce_scatter with
// ZeRO ≥ 1 / the distributed optimizer, else all_reduce, per layer after its backward on the
// last micro-batch (Megatron's per-bucket overlap, one bucket per layer); without
// overlap.dp_grad_reduce one collective for the chunk at its end. The distributed optimizer's
// parameter all_gather (bf16) runs per layer in the first micro-batch's forward with
// overlap.dp_param_gather, else after the optimizer. ZeRO-3 gathers every layer's parameters
// for every forward and backward and reduce-scatters its gradients every micro-batch.
// training.gradient_topk (top-k sparsification, DGC): each reduction becomes a selection pass
// over the gradients (topk_compress) and an all_gather of every rank's kept (value, int32 index)
// pairs, N·k·(e + 4) bytes for N ranks keeping k of their elements; the optimizer first adds
// all N·k pairs into dense gradients (topk_scatter_add). Dense ring all_reduce moves
// 2(N−1)/N·P·e a rank; the all-gather (N−1)·k·(e + 4): fewer bytes only while N·k/P < 2e/(e + 4).
// Optimizer: Adam over the rank's shard of parameters (memory-bound).
// Context parallelism: every kernel runs on the rank's s/cp tokens; the attention core is
// context_parallel.hpp's blocks and KV exchanges on the CP stream.
// MoE layers (all but the first first_dense_layers) replace the MLP by moe_layer.hpp's block
// (router, permutation, EP all-to-all, grouped expert GEMMs, shared experts); their expert
// gradients are reduced over the expert DP group. MLA's projections: attention_projections.hpp.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "ctwin/core/units.hpp"
#include "ctwin/replay/comm_groups.hpp"
#include "ctwin/replay/scenario.hpp"

namespace ctwin::replay {

enum class Stream { kCompute, kTp, kPp, kDp, kCp, kEp };
inline constexpr int kStreams = 6;

/// When the rank's compute must wait for the op to end.
enum class Join {
  kNow,      ///< before the next op of its task
  kTaskEnd,  ///< before its task (chunk forward or backward of a micro-batch) is done
  kStepEnd,  ///< before the optimizer step
};
/// On which micro-batches of a chunk the op runs.
enum class Occurs { kEvery, kFirstMicroBatch, kLastMicroBatch };

struct OpNode {
  const char* name = "";
  Stream stream = Stream::kCompute;
  SimTime duration;
  Join join = Join::kNow;
  Occurs occurs = Occurs::kEvery;
  int wait_for = -1;  ///< index of an earlier op of the same list that must end before this starts
  bool optimizer = false;
  /// Issued when the step starts, ahead of its list, in chunk order (only first-micro-batch,
  /// Join::kStepEnd ops): Megatron's overlapped parameter all-gathers are dispatched before the
  /// forward that needs them (schedules.py launches chunk k+1's while chunk k runs), not when
  /// the pipeline reaches that forward.
  bool prefetch = false;
  std::optional<CommCall> comm{};  ///< what a communication op moves (none for kernels)
  /// Host launches the op takes outside a CUDA graph (replay/host_timeline.hpp).
  int launches = 1;
  /// GPU idle time waiting for the host (replay/host_timeline.hpp), not a kernel: the profile's
  /// training_time_scale does not stretch it. A host op in a pass as built is a sync point.
  bool host = false;
  /// A grouped expert GEMM: its first launch costs the host a grouped op (host_timeline.hpp).
  bool grouped = false;
  /// Host work before this op's launch beyond its launches (a software stack's host_after_sync).
  SimTime host_extra{};
};

/// A communication op on `stream`: it moves `c.call` and takes `c.time` alone on the fabric.
[[nodiscard]] inline OpNode communication_op(const char* name, Stream stream, const TimedCall& c, Join join,
                                             Occurs occurs = Occurs::kEvery) {
  OpNode op{name, stream, c.time, join, occurs};
  op.comm = c.call;
  return op;
}

struct ChunkWork {
  std::vector<OpNode> forward;
  std::vector<OpNode> backward;
};

struct StageWork {
  std::vector<ChunkWork> chunks;     ///< model chunks (virtual stages) of this pipeline rank
  std::vector<OpNode> after_backward;  ///< once per step: optimizer, blocking parameter gather
};

struct StepWork {
  std::vector<StageWork> stages;  ///< one per pipeline rank
  std::int64_t micro_batches = 1;
  SimTime p2p;  ///< sending one micro-batch's activations (or their gradients) to the next stage
  CommCall p2p_call;
  std::int64_t stage_gpus = 1;  ///< GPUs of one pipeline stage (tp·cp·dp), consecutive in Megatron's rank order
  /// Per stage, its send priced on its own servers (a pool's groups', node_pool.hpp); empty: `p2p` for every stage.
  std::vector<SimTime> p2p_on_stage;

  /// A send from stage `from` to stage `to`: it waits for the slower end.
  [[nodiscard]] SimTime send_time(int from, int to) const {
    if (p2p_on_stage.empty()) return p2p;
    return std::max(p2p_on_stage[static_cast<std::size_t>(from)], p2p_on_stage[static_cast<std::size_t>(to)]);
  }
};

class LayerOpsCache;

/// Builds the graph for `scenario` (validated). InputError for what this slice does not model
/// yet. `layers`: transformer layers' ops already built for scenarios that differ from this one
/// only in their split (layer_ops_cache.hpp): the same work, sooner.
[[nodiscard]] StepWork build_step_work(const Scenario& scenario, CollectiveTimes& comm,
                                       LayerOpsCache* layers = nullptr);

/// One transformer layer of `scenario` on one rank (global layer `layer`: its attention window,
/// dense or MoE): its forward, and its backward with the split's recompute, as build_step_work
/// puts them in a chunk. For comparing the compute twin with a measured layer.
[[nodiscard]] ChunkWork build_layer_work(const Scenario& scenario, CollectiveTimes& comm, std::int64_t layer);

/// Sum of compute-stream kernel times of one pass of `ops` on a micro-batch that is neither the
/// first nor the last (the oracle tests' sum of kernel times).
[[nodiscard]] SimTime compute_time_of(const std::vector<OpNode>& ops, bool first, bool last);

}  // namespace ctwin::replay
