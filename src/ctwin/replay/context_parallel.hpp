#pragma once
// Context parallelism (CP) in the attention core, as Megatron-Core runs it through
// TransformerEngine (TE: transformer_engine/pytorch/attention/dot_product_attention/
// context_parallel.py, AttnFuncWithCPAndKVP2P and AttnFuncWithCPAndKVAllGather). Everything
// outside the attention core is token-parallel: it runs on the rank's s/cp tokens unchanged.
//
// Load-balanced causal chunking: each sequence of s tokens is cut into 2·cp chunks of
// c = s/(2·cp) tokens and CP rank r holds chunks r and 2·cp−1−r, so every rank has the same share
// of the causal triangle (TE's get_batch_on_this_cp_rank / Megatron's get_batch_on_this_cp_rank).
//
// p2p ("ring attention", TE's cp_comm_type "p2p"), our reading of TE's forward: the rank's K and
// V (s/cp tokens) form one buffer that travels the ring; at step i = 0..cp−1 the rank waits for
// the buffer of step i, posts the send of that buffer to rank r+1 and the receive of step i+1's
// from rank r−1 (none at the last step), then computes block i, so step i's transfer overlaps
// step i's attention. The blocks (TE's comment table "section"): step 0 the diagonal, a causal
// (s/cp)×(s/cp) attention of the local Q against the local KV; a step whose KV comes from an
// earlier chunk pair ("lower-triangle", i ≤ r) all s/cp queries against the first half (c tokens)
// of that KV, unmasked; a later one ("upper-triangle", i > r) the second half of the queries
// (c tokens) against all s/cp keys, unmasked. Every block is 2·c² query-key pairs, so a rank does
// cp·2c² = (s²/2)/cp: exactly 1/cp of the causal attention. Backward (TE's backward loop): the
// buffer carries KV and the dKV accumulated so far; step i sends KV only at i = 0, KV and dKV in
// between and dKV only at the last step (the gradients go home), again overlapped with step i's
// block backward, the diagonal last; dKV is in the activations' dtype. Per micro-batch and layer a
// rank so sends (cp−1) KV blocks forward and 2·(cp−1) blocks backward, and receives as many.
// The replayed rank is CP rank cp−1, whose non-diagonal blocks are all "lower-triangle" (the
// block that reads the most bytes); all ranks do the same FLOPs and the ring keeps them in step.
//
// all_gather (TE's "all_gather", Llama 3's CP, section 3.3.2 of the Llama 3 paper): K and V are
// all-gathered over the CP group before the forward (exposed: TE calls it blocking), then each of
// the rank's two query chunks attends causally to the keys up to its end: chunk j is c queries
// against (j+1)·c keys with a bottom-right causal mask, c·j·c + c²/2 pairs, again 1/cp of the
// causal total over both chunks. The backward gathers K and V again, runs both chunks' backward
// kernels and reduce-scatters dK, dV (exposed). TE gathers K and V as two collectives; ctwin runs
// one of their combined size.
//
// Not modelled: the softmax-statistics corrections between p2p steps (element-wise, small next
// to a block), TE's second flash-attention stream (blocks are serial on the compute stream),
// hierarchical "a2a+p2p" and Ulysses "a2a" CP.

#include <cstdint>
#include <vector>

#include "ctwin/compute/flash_attention.hpp"
#include "ctwin/compute/gpu_spec.hpp"
#include "ctwin/core/units.hpp"
#include "ctwin/replay/comm_groups.hpp"
#include "ctwin/replay/op_graph.hpp"
#include "ctwin/workload/parallel_config.hpp"

namespace ctwin::replay {

/// The attention of one rank (heads already divided by TP).
struct CpAttentionInput {
  std::int64_t micro_batch = 1;
  std::int64_t seq_len = 0;  ///< the whole sequence, before CP splits it
  std::int64_t cp = 1;
  std::int64_t rank = 0;     ///< CP rank, 0..cp−1
  std::int64_t heads_q = 0;
  std::int64_t heads_kv = 0;
  std::int64_t head_dim = 0;
  workload::CpComm comm = workload::CpComm::kP2p;
  compute::Dtype dtype = compute::Dtype::kBf16;
};

/// One step of a rank's CP attention: a block (p2p) or a query chunk (all_gather).
struct CpBlock {
  compute::AttentionShape shape;
  Bytes sent;      ///< p2p: to CP rank r+1 while this block computes (KV, dKV or both)
  Bytes received;  ///< p2p: from CP rank r−1 meanwhile
};

struct CpAttentionPlan {
  std::vector<CpBlock> forward;
  std::vector<CpBlock> backward;  ///< in the order TE runs them (p2p: the diagonal last)
  Bytes gathered;   ///< all_gather: the K, V all-gather's output, before the forward and the backward
  Bytes scattered;  ///< all_gather: the dK, dV reduce-scatter's input, after the backward
};

/// Bytes of the rank's K and V: micro_batch · seq/cp · 2 · heads_kv · head_dim · dtype bytes.
[[nodiscard]] Bytes cp_kv_block_bytes(const CpAttentionInput& in);

/// The blocks and transfers of `in` (CTWIN_ASSERT on a seq_len that 2·cp does not divide:
/// workload::validate rejects it first).
[[nodiscard]] CpAttentionPlan plan_cp_attention(const CpAttentionInput& in);

/// Turns a plan into the rank's ops: blocks on the compute stream, transfers on the CP stream.
class CpAttentionOps {
 public:
  /// `group`: the CP group's shape (cp members, TP apart).
  CpAttentionOps(const compute::GpuSpec& gpu, const CpAttentionInput& in, GroupShape group, CollectiveTimes& comm);

  /// The attention core's forward (`recompute`: again before its backward, communication included).
  void forward(std::vector<OpNode>& ops, bool recompute) const;
  void backward(std::vector<OpNode>& ops) const;

  [[nodiscard]] const CpAttentionPlan& plan() const { return plan_; }

 private:
  struct Step {
    SimTime compute;
    TimedCall transfer;  ///< p2p send/receive of this step; zero time for none
  };
  void ring(std::vector<OpNode>& ops, const std::vector<Step>& steps, const char* block, const char* send) const;

  CpAttentionPlan plan_;
  workload::CpComm comm_type_;
  std::vector<Step> forward_, backward_;
  TimedCall gather_, scatter_;
};

}  // namespace ctwin::replay
