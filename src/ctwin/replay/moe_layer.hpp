#pragma once
// The MLP block of one MoE transformer layer on one rank, forward and backward, as Megatron-Core
// runs it with the alltoall token dispatcher (megatron/core/transformer/moe/moe_layer.py,
// token_dispatcher.py MoEAlltoAllTokenDispatcher, experts.py GroupedMLP / TEGroupedMLP).
//
// Our reading of Megatron-Core (T = tokens of a micro-batch per CP rank, t = tp, e = expert_tp,
// k = top_k, E = experts, h = hidden):
//   - MoE with t > 1 needs sequence parallelism, and the MoE block takes the sequence-parallel
//     tokens as they are: n = T/t local tokens per rank, no TP all-gather in front of the router.
//   - router: logits n × E (a GEMM against the replicated h × E router weight), softmax and top-k.
//   - permute: the n·k routed copies sorted by expert (a memory-bound row gather).
//   - dispatch: all-to-all over the EP group, n·k·h bf16 elements sent per rank (nccl-tests size).
//   - with e > 1: all-gather of the received rows over the expert-TP group (each expert's FFN is
//     split e ways, so every expert-TP rank needs all of its rows); the combine reduce-scatters.
//   - experts: grouped GEMMs over the E/ep local experts: fc1 h → (SwiGLU 2·)F/e, activation,
//     fc2 F/e → h.
//   - combine: the reverse all-to-all, then unpermute (scale by the routing probability and sum
//     the k copies back into n rows).
//   - shared experts (SharedExpertMLP): a dense TP MLP of shared_experts·expert_ffn_hidden on the
//     same input, computed after the dispatch, or beside it with --moe-shared-expert-overlap
//     (scenario overlap.moe_shared_expert).
//   Backward mirrors it: unpermute backward, the combine's all-to-all for the gradients, fc2 and
//   fc1 dgrad and wgrad grouped GEMMs, the dispatch's all-to-all back, permute backward, router
//   dgrad and wgrad.
//
// Routing: each rank's experts see n·k·e rows in all when balanced, split as evenly as integers
// allow over its E/ep local experts (per expert n·k·e·ep/E on average). The scenario's moe_runtime
// (replay/moe_runtime.hpp) scales the busiest rank's expert rows by its load (imbalance, or the
// capacity factor when tokens are dropped or padded): its grouped GEMMs and activation take that
// long, and every rank waits for it at the combine. The all-to-alls keep the balanced sizes.
//
// Expert GEMM time: compute::estimate_grouped_gemm_rows, the rows model validated against the H200
// kernel profile (one dense GEMM of all the rank's rows × (1 + r0 / rows per expert)). Permute and
// unpermute: compute::estimate_permute, unfused or fused by moe_runtime.permute_fusion.
//
// Host: with a dropless dispatcher (no capacity factor) and no CUDA graphs, the forward copies the
// tokens per expert to the host after the router (moe_dispatch_sync, a sync point of the host
// timeline, replay/host_timeline.hpp, which sets its duration); TransformerEngine's grouped linear
// issues one GEMM per local expert. The backward reuses the splits: no sync. Launches per op (the
// host issues each): router forward 5 kernels (logit GEMM; fp32 cast, softmax, top-k, probabilities
// as router_topk), backward 9 (the H200 profile's router block by our reading,
// calibration/host_profile.hpp); the dispatcher's preprocessing before the copy 3 (tokens per
// expert, their all-gather over EP, the device-to-host copy: token_dispatcher.py preprocess);
// permutation passes compute::permute_launches.
//
// Communication groups under MoE parallel folding (Megatron's expert rank generator orders
// expert-tp, ep, expert-dp over the tp·cp·dp ranks of a pipeline stage): expert TP {e, stride 1},
// EP {ep, stride e}, expert DP {tp·cp·dp/(ep·e), stride e·ep}. Expert weights are reduced over
// expert DP; attention, router and shared experts over the dense DP group.
//
// A scenario's software stack (replay/stack_profile.hpp) adds, in an fp8 step, the casts of each
// expert GEMM input and output gradient beyond the GEMM table's own, pads rows per expert, adds the
// router's load-balancing loss kernels, sets the dispatcher's preprocessing launches and whether the
// host waits, charges its host work after the wait to the permutation's launch, scales the
// expert path's kernels by its expert_time_scale and adds its per_expert_overhead to each grouped
// GEMM once per local expert that received rows. Without one, none of this happens.
//
// Not modelled: token dropping (capacity factor), load imbalance, the auxiliary and z losses,
// fp8 dispatch, DeepEP / the flex dispatcher, overlap of the all-to-all with another
// micro-batch's compute (--overlap-moe-expert-parallel-comm).

#include <cstdint>
#include <functional>
#include <vector>

#include "ctwin/compute/grouped_gemm.hpp"
#include "ctwin/compute/memory_kernels.hpp"
#include "ctwin/compute/moe_kernels.hpp"
#include "ctwin/core/units.hpp"
#include "ctwin/replay/comm_groups.hpp"
#include "ctwin/replay/op_graph.hpp"
#include "ctwin/replay/scenario.hpp"

namespace ctwin::replay {

/// What one rank of a stage does in one MoE layer, per micro-batch.
struct MoeRankShape {
  std::int64_t local_tokens = 0;  ///< n: tokens entering the block on this rank
  std::int64_t local_experts = 0;  ///< E / ep
  std::vector<std::int64_t> rows_per_expert;  ///< each local expert's GEMM rows (balanced routing)
  std::int64_t expert_cols = 0;   ///< expert_ffn_hidden / expert_tp (fc2's K)
  std::int64_t fc1_cols = 0;      ///< SwiGLU: 2·expert_cols (gate and up), GeLU: expert_cols
  Bytes all_to_all;               ///< dispatch (= combine) buffer per rank: n·k·h·2
  Bytes expert_tp_gather;         ///< all-gather output over expert TP: e · all_to_all
  [[nodiscard]] std::int64_t rows() const;  ///< Σ rows_per_expert = n·k·e
};

struct MoeGroups {
  GroupShape expert_tp;
  GroupShape ep;
  GroupShape expert_dp;
};

/// `split` validated against `model` (an MoE model) and `gpus`.
[[nodiscard]] MoeRankShape moe_rank_shape(const workload::ModelSpec& model, const workload::ParallelConfig& split);
[[nodiscard]] MoeGroups moe_groups(const workload::ParallelConfig& split, std::int64_t gpus);

/// Appends ops; the callback appends the shared experts' dense MLP (nothing when there are none)
/// and, in the backward, returns what its caller's next kernel must wait for (-1: nothing).
class MoeLayer {
 public:
  using SharedForward = std::function<void(std::vector<OpNode>&)>;
  using SharedBackward = std::function<int(std::vector<OpNode>&)>;

  MoeLayer(const Scenario& scenario, CollectiveTimes& comm);

  void forward(std::vector<OpNode>& ops, const SharedForward& shared) const;
  /// Returns the index of the op the next kernel must wait for (-1: none).
  int backward(std::vector<OpNode>& ops, const SharedBackward& shared) const;

  /// Per rank, per MoE layer: expert weights (reduced over expert DP) and the router (replicated
  /// on every TP rank, reduced over the dense DP group).
  [[nodiscard]] std::int64_t expert_params() const { return expert_params_; }
  [[nodiscard]] std::int64_t router_params() const { return router_params_; }
  [[nodiscard]] const MoeGroups& groups() const { return groups_; }
  [[nodiscard]] const MoeRankShape& shape() const { return shape_; }

 private:
  SimTime gemm(std::int64_t m, std::int64_t n, std::int64_t k, compute::Dtype dtype) const;
  SimTime grouped(std::int64_t n, std::int64_t k, compute::GroupedTokens along) const;
  /// The stack's expert_time_scale on a kernel of the expert path.
  SimTime expert(SimTime t) const;
  /// The stack's fp8 casts of one expert GEMM input (nothing without a stack or in bf16).
  void quantize(std::vector<OpNode>& ops, const char* name, std::int64_t elements, bool backward,
                int wait_for = -1) const;
  /// The stack's load-balancing loss kernels.
  void aux_loss(std::vector<OpNode>& ops, bool backward) const;
  SimTime memory(compute::MemoryKernel kind, std::int64_t elements, bool backward) const;
  compute::PermuteShape permute_shape(compute::PermutePass pass) const;
  /// Host launches of a grouped GEMM (one per local expert that received rows).
  int grouped_launches() const;
  OpNode grouped_op(const char* name, SimTime time) const;
  OpNode permute_op(const char* name, compute::PermutePass pass) const;
  /// An EP-stream collective: its predicted time and its call (for the shared-fabric replay).
  [[nodiscard]] static OpNode on_ep(const char* name, const TimedCall& c, Join join = Join::kNow);

  const Scenario& s_;
  MoeRankShape shape_;
  std::vector<std::int64_t> busy_rows_;  ///< rows per local expert on the busiest EP rank
  std::int64_t busy_total_ = 0;
  MoeGroups groups_;
  compute::Dtype dtype_;
  bool overlap_shared_ = false;
  double expert_scale_ = 1.0;
  TimedCall all_to_all_, expert_tp_gather_, expert_tp_reduce_scatter_;
  std::int64_t expert_params_ = 0, router_params_ = 0;
};

}  // namespace ctwin::replay
