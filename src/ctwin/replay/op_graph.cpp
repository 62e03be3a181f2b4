#include "ctwin/replay/op_graph.hpp"

#include <algorithm>
#include <optional>

#include "ctwin/compute/flash_attention.hpp"
#include "ctwin/compute/gemm_model.hpp"
#include "ctwin/compute/memory_kernels.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/replay/attention_projections.hpp"
#include "ctwin/replay/context_parallel.hpp"
#include "ctwin/replay/host_timeline.hpp"
#include "ctwin/replay/layer_ops_cache.hpp"
#include "ctwin/replay/gemm_dtype.hpp"
#include "ctwin/replay/moe_layer.hpp"
#include "ctwin/workload/parameter_count.hpp"

namespace ctwin::replay {
namespace {

using collectives::Op;
using compute::MemoryKernel;

// A sent gradient element's position in its bucket: int32, as DGC's sparse all-gather sends it.
constexpr std::int64_t kTopkIndexBytes = 4;

class Builder {
 public:
  Builder(const Scenario& s, CollectiveTimes& comm, LayerOpsCache* layers = nullptr)
      : s_(s), m_(s.model), p_(s.split), comm_(comm), layers_(layers), params_(workload::count_parameters(s.model)) {
    t_ = p_.tp;
    dp_ = p_.data_parallel(s.gpus);
    tokens_ = p_.micro_batch * p_.seq_len / p_.cp;
    sp_tokens_ = p_.sequence_parallel ? tokens_ / t_ : tokens_;
    tp_group_ = {t_, 1};
    dp_group_ = {dp_ * p_.cp, t_};
    pp_group_ = {2, t_ * p_.cp * dp_};
    const Bytes activation(tokens_ * m_.hidden * 2);
    if (p_.sequence_parallel) {
      tp_fwd_in_ = {Op::kAllGather, tp_group_, activation, 2};
      tp_fwd_out_ = {Op::kReduceScatter, tp_group_, activation, 2};
    } else {
      tp_fwd_out_ = {Op::kAllReduce, tp_group_, activation, 2};
    }
    qkv_ = qkv_projections(m_, t_);
    attn_cols_ = m_.heads * m_.v_head_dim() / t_;
    head_dim_ = flash_head_dim(m_);
    ffn_cols_ = m_.ffn_hidden / t_;
    up_cols_ = (m_.activation == workload::Activation::kSwiglu ? 2 : 1) * ffn_cols_;
    // Matrices are split by TP; norms are replicated, counted once per rank.
    layer_params_ = (params_.layer.attention + params_.layer.dense_mlp) / t_ + params_.layer.norms;
    zero_ = p_.zero_stage();
    if (p_.cp > 1) {
      // CP rank cp − 1: see context_parallel.hpp. Members are TP apart (rank order tp-cp-ep-dp-pp).
      const auto a = attention(0);  // CP refuses sliding windows: every layer alike
      cp_.emplace(s_.gpu,
                  CpAttentionInput{p_.micro_batch, p_.seq_len, p_.cp, p_.cp - 1, a.heads_q, a.heads_kv, a.head_dim,
                                   p_.cp_comm, a.dtype},
                  GroupShape{p_.cp, t_}, comm_);
    }
    if (m_.has_moe) {
      moe_.emplace(s, comm);
      // Shared experts are one dense TP MLP of their summed width (Megatron's SharedExpertMLP).
      shared_ffn_cols_ = m_.moe.shared_experts * m_.moe.expert_ffn_hidden / t_;
      shared_up_cols_ = (m_.activation == workload::Activation::kSwiglu ? 2 : 1) * shared_ffn_cols_;
      moe_layer_params_ = (params_.layer.attention + m_.moe.shared_experts * params_.layer.expert) / t_ +
                          params_.layer.norms + moe_->router_params();
      expert_dp_group_ = moe_->groups().expert_dp;
    }
  }

  /// Global layer `layer` alone: its forward and its backward (recompute included).
  ChunkWork layer(std::int64_t layer) const {
    ChunkWork w;
    layer_forward(w.forward, -1, layer);
    layer_backward(w.backward, -1, layer);
    return w;
  }

  /// layer(layer) from the cache when there is one (the same ops: see layer_ops_cache.hpp).
  std::shared_ptr<const ChunkWork> cached_layer(std::int64_t layer) const {
    return layers_->get(LayerOpsKey::of(p_, m_.attention_window(layer), is_moe(layer)),
                        [this, layer] { return this->layer(layer); });
  }

  StepWork build() {
    StepWork work;
    work.micro_batches = p_.micro_batches(s_.gpus);
    work.p2p_call = {Op::kSendRecv, pp_group_, Bytes(sp_tokens_ * m_.hidden * 2), 2};
    work.p2p = comm_.time(work.p2p_call);
    work.stage_gpus = t_ * p_.cp * dp_;
    const std::int64_t chunks = p_.vpp;
    for (std::int64_t r = 0; r < p_.pp; ++r) {
      StageWork stage;
      std::int64_t held = 0, held_experts = 0;
      for (std::int64_t c = 0; c < chunks; ++c) {
        const std::int64_t layers = p_.chunk_layers(m_.layers, r, c);
        const std::int64_t first_layer = p_.chunk_first_layer(m_.layers, r, c);
        const bool first = c == 0 && r == 0;
        const bool last = c == chunks - 1 && r == p_.pp - 1;
        std::int64_t extra = 0;
        if (first) extra += params_.embedding / t_;
        if (last) extra += (params_.output > 0 ? params_.output : (p_.pp > 1 ? params_.embedding : 0)) / t_ +
                           params_.final_norm;
        stage.chunks.push_back(chunk(layers, first, last, extra, first_layer));
        for (std::int64_t i = 0; i < layers; ++i) {
          held += dense_group_params(first_layer + i);
          held_experts += expert_params(first_layer + i);
        }
        held += extra;
      }
      stage.after_backward = step_end(held, held_experts);
      work.stages.push_back(std::move(stage));
    }
    return work;
  }

 private:
  SimTime gemm(std::int64_t m, std::int64_t n, std::int64_t k) const {
    return compute::estimate_gemm(s_.gpu, {m, n, k, gemm_dtype(p_.precision)}).time;
  }
  SimTime memory(MemoryKernel kind, std::int64_t elements, bool backward) const {
    return compute::estimate_memory_kernel(s_.gpu, {kind, elements, compute::Dtype::kBf16, backward}).time;
  }
  compute::AttentionShape attention(std::int64_t layer) const {
    compute::AttentionShape shape{p_.micro_batch, p_.seq_len / p_.cp, p_.seq_len / p_.cp, m_.heads / t_,
                                  attention_kv_heads(m_, t_), head_dim_, true, compute::Dtype::kBf16};
    shape.window = m_.attention_window(layer);
    return shape;
  }
  /// Whether global layer `layer` has routed experts (the first first_dense_layers do not).
  bool is_moe(std::int64_t layer) const { return m_.has_moe && layer >= m_.moe.first_dense_layers; }
  /// A layer's parameters reduced over the dense DP group, per rank.
  std::int64_t dense_group_params(std::int64_t layer) const { return is_moe(layer) ? moe_layer_params_ : layer_params_; }
  /// A layer's parameters reduced over the expert DP group, per rank.
  std::int64_t expert_params(std::int64_t layer) const { return is_moe(layer) ? moe_->expert_params() : 0; }
  MemoryKernel norm() const { return m_.norm == workload::Norm::kRmsNorm ? MemoryKernel::kRmsNorm : MemoryKernel::kLayerNorm; }
  /// PyTorch eager autograd's kernels (stack "layer_kernels": "eager", replay/stack_profile.hpp).
  bool eager() const { return s_.stack && s_.stack->layer_kernels == LayerKernels::kEager; }
  MemoryKernel rotary_kernel() const { return eager() ? MemoryKernel::kRotaryUnfused : MemoryKernel::kRotary; }
  MemoryKernel activation_kernel() const {
    if (m_.activation != workload::Activation::kSwiglu) return MemoryKernel::kGelu;
    return eager() ? MemoryKernel::kSwiGluUnfused : MemoryKernel::kSwiGlu;
  }
  /// Eager autograd adds each weight's new gradient into the one it holds (no fused accumulation
  /// into the wgrad GEMM, as Megatron-Core's main_grad buffers do).
  void grad_accumulate(std::vector<OpNode>& ops, std::int64_t elements) const {
    if (eager()) compute(ops, "grad_accumulate", memory(MemoryKernel::kGradAccumulate, elements, true));
  }
  /// TransformerEngine's userbuffers (tp_overlap.hpp): each TP collective runs inside its GEMM,
  /// as overlap.tp_comm_config says (TE's defaults unless a recipe gives its own).
  bool ub_overlap() const { return s_.overlap.tp_comm && t_ > 1 && p_.sequence_parallel; }
  const UbOverlapConfig& ub() const { return s_.overlap.tp_comm_config; }
  /// A GEMM beside `overlap`'s collective `call`, sharing the SMs with it.
  SimTime beside(const UbGemmOverlap& overlap, SimTime gemm_time, const CommCall& call) const {
    if (!ub_overlap()) return gemm_time;
    return SimTime::from_seconds(
        ub_gemm_seconds(overlap, s_.gpu.sm_count, gemm_time.seconds(), comm_.timed(call).time.seconds()));
  }
  Join tp_join() const { return ub_overlap() ? Join::kTaskEnd : Join::kNow; }

  /// A communication op: its time from the communication twin, its call kept for shared-fabric replay.
  OpNode comm_op(const char* name, Stream stream, const CommCall& call, Join join, Occurs occurs = Occurs::kEvery) const {
    return communication_op(name, stream, comm_.timed(call), join, occurs);
  }

  static int add(std::vector<OpNode>& ops, OpNode op) {
    ops.push_back(op);
    return static_cast<int>(ops.size()) - 1;
  }
  void compute(std::vector<OpNode>& ops, const char* name, SimTime time, int wait_for = -1) const {
    add(ops, {name, Stream::kCompute, time, Join::kNow, Occurs::kEvery, wait_for});
  }
  /// A row-parallel layer's forward GEMM and the TP collective on its output.
  void row_parallel_forward(std::vector<OpNode>& ops, const char* name, SimTime gemm_time, const UbGemmOverlap& overlap) const {
    if (!ub_overlap()) {
      compute(ops, name, gemm_time);
      if (t_ > 1) add(ops, comm_op(p_.sequence_parallel ? "tp_reduce_scatter" : "tp_all_reduce", Stream::kTp, tp_fwd_out_, Join::kNow));
      return;
    }
    // The first chunk alone, the others beside the reduce-scatter of those before (pipeline), or
    // of the partial results passed on round the ring (ring_exchange, tp chunks); the last
    // chunk's is exposed.
    const int splits = overlap.method == UbMethod::kPipeline ? overlap.num_splits : static_cast<int>(t_);
    const double slower = beside(overlap, gemm_time, tp_fwd_out_).seconds();
    const std::int64_t chunk_bytes = tp_fwd_out_.size.count() / splits;
    CommCall behind = tp_fwd_out_;
    behind.size = Bytes(tp_fwd_out_.size.count() - chunk_bytes);
    CommCall last = tp_fwd_out_;
    last.size = Bytes(chunk_bytes);
    compute(ops, name, SimTime::from_seconds(slower / splits));
    add(ops, comm_op("tp_reduce_scatter", Stream::kTp, behind, Join::kTaskEnd));
    compute(ops, name, SimTime::from_seconds(slower * (splits - 1) / splits));
    add(ops, comm_op("tp_reduce_scatter", Stream::kTp, last, Join::kNow));
  }
  /// The sequence-parallel gather of a column-parallel layer's input; returns its index, -1
  /// when there is none.
  int tp_in(std::vector<OpNode>& ops, Join join) const {
    if (t_ > 1 && p_.sequence_parallel) return add(ops, comm_op("tp_all_gather", Stream::kTp, tp_fwd_in_, join));
    return -1;
  }
  /// A GEMM on the gathered input: with ring_exchange overlap its chunks follow the shards in,
  /// the last one waiting for the whole gather.
  void on_gathered(std::vector<OpNode>& ops, const char* name, SimTime gemm_time, int gathered,
                   const UbGemmOverlap& overlap) const {
    if (!ub_overlap() || gathered < 0) {
      compute(ops, name, gemm_time);
      return;
    }
    const double t = static_cast<double>(t_);
    const double slower = beside(overlap, gemm_time, tp_fwd_in_).seconds();
    compute(ops, name, SimTime::from_seconds(slower * (t - 1) / t));
    compute(ops, name, SimTime::from_seconds(slower / t), gathered);
  }

  // The attention core. Unfused, its two batched GEMMs are folded into one GEMM each (the batch of
  // micro-batch × heads stacked along M: the same FLOPs), around the s×s softmax and dropout.
  std::int64_t score_rows() const { return p_.micro_batch * (m_.heads / t_) * (p_.seq_len / p_.cp); }
  std::int64_t score_elements() const { return score_rows() * (p_.seq_len / p_.cp); }

  void attention_forward(std::vector<OpNode>& ops, const std::string& suffix, std::int64_t layer) const {
    if (cp_) return cp_->forward(ops, !suffix.empty());
    if (p_.flash_attention) {
      add(ops, {suffix.empty() ? "flash_attention" : "flash_attention_recompute", Stream::kCompute,
                compute::estimate_flash_attention_forward(s_.gpu, attention(layer)).time});
      return;
    }
    const std::int64_t s = p_.seq_len / p_.cp;
    const bool again = !suffix.empty();
    compute(ops, again ? "attention_scores_gemm_recompute" : "attention_scores_gemm", gemm(score_rows(), s, head_dim_));
    compute(ops, again ? "softmax_recompute" : "softmax", memory(MemoryKernel::kSoftmax, score_elements(), false));
    if (m_.dropout) {
      compute(ops, again ? "attention_dropout_recompute" : "attention_dropout",
              memory(MemoryKernel::kDropout, score_elements(), false));
    }
    compute(ops, again ? "attention_values_gemm_recompute" : "attention_values_gemm", gemm(score_rows(), head_dim_, s));
  }

  void attention_backward(std::vector<OpNode>& ops, std::int64_t layer) const {
    if (cp_) return cp_->backward(ops);
    if (p_.flash_attention) {
      compute(ops, "flash_attention_bwd", compute::estimate_flash_attention_backward(s_.gpu, attention(layer)).time);
      return;
    }
    const std::int64_t s = p_.seq_len / p_.cp;
    // Each forward GEMM has two backward GEMMs of its FLOPs (the gradients of both operands).
    compute(ops, "attention_values_dgrad", gemm(score_rows(), s, head_dim_));
    compute(ops, "attention_values_wgrad", gemm(score_rows(), head_dim_, s));
    if (m_.dropout) compute(ops, "attention_dropout_bwd", memory(MemoryKernel::kDropout, score_elements(), true));
    compute(ops, "softmax_bwd", memory(MemoryKernel::kSoftmax, score_elements(), true));
    compute(ops, "attention_scores_dgrad", gemm(score_rows(), head_dim_, s));
    compute(ops, "attention_scores_wgrad", gemm(score_rows(), head_dim_, s));
  }

  /// Global layer `layer` (its attention window, whether it has routed experts).
  void layer_forward(std::vector<OpNode>& ops, int wait_for, std::int64_t layer) const {
    const std::int64_t h = m_.hidden;
    compute(ops, "norm", memory(norm(), sp_tokens_ * h, false), wait_for);
    int gathered = tp_in(ops, tp_join());
    for (const ProjectionGemm& g : qkv_) {
      if (g.input_norm > 0) compute(ops, g.norm_name, memory(norm(), tokens_ * g.input_norm, false));
      on_gathered(ops, g.name, gemm(tokens_, g.n, g.k), gathered, ub().qkv_fprop);
      gathered = -1;  // the first projection reads the gathered input; MLA's others read its output
    }
    if (m_.position == workload::PositionEmbedding::kRope) {
      compute(ops, "rotary", memory(rotary_kernel(), tokens_ * rotary_width(m_, t_), false));
    }
    attention_forward(ops, "", layer);
    row_parallel_forward(ops, "proj_gemm", gemm(tokens_, h, attn_cols_), ub().proj_fprop);
    if (m_.dropout) compute(ops, "dropout", memory(MemoryKernel::kDropout, sp_tokens_ * h, false));
    compute(ops, "residual", memory(MemoryKernel::kResidualAdd, sp_tokens_ * h, false));
    compute(ops, "norm", memory(norm(), sp_tokens_ * h, false));
    if (is_moe(layer)) {
      moe_->forward(ops, [this](std::vector<OpNode>& o) {
        if (shared_ffn_cols_ > 0) mlp_forward(o, shared_ffn_cols_, shared_up_cols_);
      });
    } else {
      mlp_forward(ops, ffn_cols_, up_cols_);
    }
    if (m_.dropout) compute(ops, "dropout", memory(MemoryKernel::kDropout, sp_tokens_ * h, false));
    compute(ops, "residual", memory(MemoryKernel::kResidualAdd, sp_tokens_ * h, false));
  }

  /// A dense TP MLP (a dense layer's, or an MoE layer's shared experts) from its SP input gather
  /// to its output reduction.
  void mlp_forward(std::vector<OpNode>& ops, std::int64_t ffn_cols, std::int64_t up_cols) const {
    on_gathered(ops, "mlp_up_gemm", gemm(tokens_, up_cols, m_.hidden), tp_in(ops, tp_join()), ub().fc1_fprop);
    compute(ops, m_.activation == workload::Activation::kSwiglu ? "swiglu" : "gelu",
            memory(activation_kernel(), tokens_ * ffn_cols, false));
    row_parallel_forward(ops, "mlp_down_gemm", gemm(tokens_, m_.hidden, ffn_cols), ub().fc2_fprop);
  }
  /// Its backward; returns what the next kernel waits for (column_parallel_backward).
  int mlp_backward(std::vector<OpNode>& ops, std::int64_t ffn_cols, std::int64_t up_cols) const {
    row_parallel_backward(ops, "mlp_down_dgrad", "mlp_down_wgrad", ffn_cols, ub().fc2_dgrad);
    compute(ops, m_.activation == workload::Activation::kSwiglu ? "swiglu_bwd" : "gelu_bwd",
            memory(activation_kernel(), tokens_ * ffn_cols, true));
    const int reduce = column_parallel_backward(ops, {{"mlp_up_gemm", "mlp_up_dgrad", "mlp_up_wgrad", up_cols, m_.hidden}},
                                                ub().fc1_dgrad, ub().fc1_wgrad);
    grad_accumulate(ops, m_.hidden * ffn_cols);
    grad_accumulate(ops, m_.hidden * up_cols);
    return reduce;
  }

  /// Backward of a row-parallel linear (proj, MLP down): the output gradient is gathered first
  /// (with userbuffers, ring_exchange into the dgrad GEMM; the wgrad GEMM reads the same buffer).
  void row_parallel_backward(std::vector<OpNode>& ops, const char* dgrad, const char* wgrad, std::int64_t in_cols,
                             const UbGemmOverlap& overlap) const {
    const int gathered = tp_in(ops, tp_join());
    on_gathered(ops, dgrad, gemm(tokens_, in_cols, m_.hidden), gathered, overlap);
    compute(ops, wgrad, gemm(in_cols, m_.hidden, tokens_));
  }
  /// Backward of a column-parallel linear (QKV, MLP up), or of MLA's projections taken as one:
  /// Megatron overlaps the input re-gather with the dgrad GEMMs and the gradient reduction with
  /// the wgrad GEMMs. Returns the reduction's index (what the next kernel waits for), -1 without TP.
  int column_parallel_backward(std::vector<OpNode>& ops, const std::vector<ProjectionGemm>& gemms,
                               const UbGemmOverlap& dgrad_overlap, const UbGemmOverlap& wgrad_overlap) const {
    int gather = -1;
    if (t_ > 1 && p_.sequence_parallel) gather = add(ops, comm_op("tp_all_gather", Stream::kTp, tp_fwd_in_, Join::kTaskEnd));
    for (auto g = gemms.rbegin(); g != gemms.rend(); ++g) {
      compute(ops, g->dgrad, beside(dgrad_overlap, gemm(tokens_, g->k, g->n), tp_fwd_in_));
      if (g->input_norm > 0) compute(ops, g->norm_name, memory(norm(), tokens_ * g->input_norm, true));
    }
    int reduce = -1;
    if (t_ > 1) {
      reduce = add(ops, comm_op(p_.sequence_parallel ? "tp_reduce_scatter" : "tp_all_reduce", Stream::kTp, tp_fwd_out_,
                                Join::kTaskEnd));
    }
    for (auto g = gemms.rbegin(); g != gemms.rend(); ++g) {
      compute(ops, g->wgrad, beside(wgrad_overlap, gemm(g->k, g->n, tokens_), tp_fwd_out_), g == gemms.rbegin() ? gather : -1);
    }
    return reduce;
  }

  void layer_backward(std::vector<OpNode>& ops, int wait_for, std::int64_t layer) const {
    const std::int64_t h = m_.hidden;
    if (p_.recompute == workload::Recompute::kFull) layer_forward(ops, wait_for, layer), wait_for = -1;
    if (m_.dropout) compute(ops, "dropout_bwd", memory(MemoryKernel::kDropout, sp_tokens_ * h, true), wait_for), wait_for = -1;
    compute(ops, "residual_bwd", memory(MemoryKernel::kResidualAdd, sp_tokens_ * h, true), wait_for);
    int reduce = is_moe(layer) ? moe_->backward(ops, [this](std::vector<OpNode>& o) {
                         return shared_ffn_cols_ > 0 ? mlp_backward(o, shared_ffn_cols_, shared_up_cols_) : -1;
                       })
                     : mlp_backward(ops, ffn_cols_, up_cols_);
    compute(ops, "norm_bwd", memory(norm(), sp_tokens_ * h, true), reduce);
    if (m_.dropout) compute(ops, "dropout_bwd", memory(MemoryKernel::kDropout, sp_tokens_ * h, true));
    compute(ops, "residual_bwd", memory(MemoryKernel::kResidualAdd, sp_tokens_ * h, true));
    row_parallel_backward(ops, "proj_dgrad", "proj_wgrad", attn_cols_, ub().proj_dgrad);
    if (p_.recompute == workload::Recompute::kSelective) attention_forward(ops, "_recompute", layer);
    attention_backward(ops, layer);
    if (m_.position == workload::PositionEmbedding::kRope) {
      compute(ops, "rotary_bwd", memory(rotary_kernel(), tokens_ * rotary_width(m_, t_), true));
    }
    if (eager()) {
      // autograd's cat of the q, k and v gradients into the QKV output's (split's backward)
      std::int64_t qkv_cols = 0;
      for (const ProjectionGemm& g : qkv_) qkv_cols += g.n;
      compute(ops, "qkv_grad_concat", memory(MemoryKernel::kConcat, tokens_ * qkv_cols, true));
    }
    reduce = column_parallel_backward(ops, qkv_, ub().qkv_dgrad, ub().qkv_wgrad);
    compute(ops, "norm_bwd", memory(norm(), sp_tokens_ * h, true), reduce);
    for (const ProjectionGemm& g : qkv_) grad_accumulate(ops, g.n * g.k);
    grad_accumulate(ops, h * attn_cols_);
    grad_accumulate(ops, h), grad_accumulate(ops, h);  // the two norms' weights
  }

  /// Parameter all_gathers of `layers` layers from `first_layer` on, queued at the start of a pass
  /// so that each layer's gather runs ahead of its compute (prefetch); returns, per layer, the
  /// index of its last gather (an MoE layer gathers its experts over expert DP after the rest).
  /// Once-per-step gathers (the distributed optimizer's) are issued at the step's start.
  std::vector<int> gathers(std::vector<OpNode>& ops, std::int64_t layers, Occurs occurs, std::int64_t first_layer) const {
    const bool at_step_start = occurs == Occurs::kFirstMicroBatch;
    std::vector<int> out;
    for (std::int64_t i = first_layer; i < first_layer + layers; ++i) {
      const CommCall gather{Op::kAllGather, dp_group_, Bytes(dense_group_params(i) * 2), 2};
      OpNode dense = comm_op("dp_param_all_gather", Stream::kDp, gather, Join::kStepEnd, occurs);
      dense.prefetch = at_step_start;
      int last = add(ops, dense);
      if (expert_params(i) > 0 && expert_dp_group_.size > 1) {
        const CommCall experts{Op::kAllGather, expert_dp_group_, Bytes(expert_params(i) * 2), 2};
        OpNode expert = comm_op("expert_dp_param_all_gather", Stream::kDp, experts, Join::kStepEnd, occurs);
        expert.prefetch = at_step_start;
        last = add(ops, expert);
      }
      out.push_back(last);
    }
    return out;
  }

  /// Bytes of a gradient element in the DP reduction (workload::ParallelConfig::grad_reduce_in_fp32).
  int grad_bytes() const { return p_.grad_reduce_in_fp32 ? 4 : 2; }
  compute::Dtype grad_dtype() const { return p_.grad_reduce_in_fp32 ? compute::Dtype::kTf32 : compute::Dtype::kBf16; }
  /// Gradient elements a rank sends of `parameters` under top-k sparsification (at least one).
  std::int64_t topk_kept(std::int64_t parameters) const {
    return std::max<std::int64_t>(1, std::llround(*p_.gradient_topk * static_cast<double>(parameters)));
  }
  /// The DP reduction of `parameters` gradients over `group`: reduce_scatter with ZeRO >= 1, else
  /// all_reduce. With training.gradient_topk each rank first selects what it sends
  /// (topk_compress) and the group all-gathers every rank's (value, int32 index) pairs, which
  /// the optimizer adds into dense gradients (topk_scatter_add, in optimizer()).
  void reduce_gradients(std::vector<OpNode>& ops, const char* name, const GroupShape& group, std::int64_t parameters,
                        Join join, Occurs occurs) const {
    if (!p_.gradient_topk) {
      add(ops, comm_op(name, Stream::kDp,
                       {zero_ >= 1 ? Op::kReduceScatter : Op::kAllReduce, group, Bytes(parameters * grad_bytes()),
                        grad_bytes()},
                       join, occurs));
      return;
    }
    const SimTime select =
        compute::estimate_memory_kernel(s_.gpu, {MemoryKernel::kTopkCompress, parameters, grad_dtype(), false}).time;
    add(ops, {"topk_compress", Stream::kCompute, select, Join::kNow, occurs});
    const std::int64_t pairs = group.size * topk_kept(parameters);
    add(ops, comm_op(name, Stream::kDp, {Op::kAllGather, group, Bytes(pairs * (grad_bytes() + kTopkIndexBytes)), grad_bytes()},
                     join, occurs));
  }

  ChunkWork chunk(std::int64_t layers, bool first, bool last, std::int64_t extra_params, std::int64_t first_layer) const {
    ChunkWork w;
    const std::int64_t h = m_.hidden;
    const bool zero3 = zero_ == 3;
    const bool overlapped_gather = zero_ >= 1 && zero_ <= 2 && s_.overlap.dp_param_gather;
    std::vector<int> fwd_gathers;
    if (zero3) fwd_gathers = gathers(w.forward, layers, Occurs::kEvery, first_layer);
    else if (overlapped_gather) fwd_gathers = gathers(w.forward, layers, Occurs::kFirstMicroBatch, first_layer);
    if (first) compute(w.forward, "embedding", memory(MemoryKernel::kGelu, sp_tokens_ * h, false));
    for (std::int64_t i = 0; i < layers; ++i) {
      const int wait_for = fwd_gathers.empty() ? -1 : fwd_gathers[static_cast<std::size_t>(i)];
      if (layers_ != nullptr) append_layer_ops(w.forward, cached_layer(first_layer + i)->forward, wait_for);
      else layer_forward(w.forward, wait_for, first_layer + i);
    }
    const std::int64_t vocab_cols = m_.vocab / t_;
    if (last) {
      compute(w.forward, "final_norm", memory(norm(), sp_tokens_ * h, false));
      tp_in(w.forward, Join::kNow);  // Megatron's own output layer: no userbuffers
      compute(w.forward, "logits_gemm", gemm(tokens_, vocab_cols, h));
      compute(w.forward, "cross_entropy", memory(MemoryKernel::kGelu, tokens_ * vocab_cols, false));
    }

    std::vector<int> bwd_gathers;
    if (zero3) bwd_gathers = gathers(w.backward, layers, Occurs::kEvery, first_layer);
    const bool per_layer_reduce = zero3 || s_.overlap.dp_grad_reduce;
    const Occurs reduce_when = zero3 ? Occurs::kEvery : Occurs::kLastMicroBatch;
    if (last) {
      compute(w.backward, "cross_entropy_bwd", memory(MemoryKernel::kGelu, tokens_ * vocab_cols, true));
      compute(w.backward, "logits_dgrad", gemm(tokens_, h, vocab_cols));
      compute(w.backward, "logits_wgrad", gemm(h, vocab_cols, tokens_));
      if (t_ > 1) {
        add(w.backward, comm_op(p_.sequence_parallel ? "tp_reduce_scatter" : "tp_all_reduce", Stream::kTp, tp_fwd_out_,
                                Join::kNow));
      }
      compute(w.backward, "final_norm_bwd", memory(norm(), sp_tokens_ * h, true));
    }
    for (std::int64_t i = layers - 1; i >= 0; --i) {
      const std::int64_t layer = first_layer + i;
      const int wait_for = bwd_gathers.empty() ? -1 : bwd_gathers[static_cast<std::size_t>(i)];
      if (layers_ != nullptr) append_layer_ops(w.backward, cached_layer(layer)->backward, wait_for);
      else layer_backward(w.backward, wait_for, layer);
      if (per_layer_reduce && dp_group_.size > 1) {
        reduce_gradients(w.backward, "dp_grad_reduce", dp_group_, dense_group_params(layer), Join::kStepEnd, reduce_when);
      }
      if (per_layer_reduce && expert_params(layer) > 0 && expert_dp_group_.size > 1) {
        reduce_gradients(w.backward, "expert_dp_grad_reduce", expert_dp_group_, expert_params(layer), Join::kStepEnd,
                         reduce_when);
      }
    }
    if (first) compute(w.backward, "embedding_bwd", memory(MemoryKernel::kGelu, sp_tokens_ * h, true));
    if (dp_group_.size > 1 && per_layer_reduce && extra_params > 0) {
      reduce_gradients(w.backward, "dp_grad_reduce", dp_group_, extra_params, Join::kStepEnd, reduce_when);
    }
    return w;
  }

  // Without overlap the gradients are reduced once the whole pipeline schedule is done
  // (Megatron's finalize_model_grads), after every send of the step: reducing inside the last
  // backward would hold its gradient back from the previous stage, one stage after another.
  // `held` parameters are reduced and sharded over the dense DP group, `experts` over expert DP.
  std::vector<OpNode> step_end(std::int64_t held, std::int64_t experts) const {
    std::vector<OpNode> ops;
    const bool per_layer_reduce = zero_ == 3 || s_.overlap.dp_grad_reduce;
    if (dp_group_.size > 1 && !per_layer_reduce) {
      reduce_gradients(ops, "dp_grad_reduce", dp_group_, held, Join::kNow, Occurs::kEvery);
    }
    if (experts > 0 && expert_dp_group_.size > 1 && !per_layer_reduce) {
      reduce_gradients(ops, "expert_dp_grad_reduce", expert_dp_group_, experts, Join::kNow, Occurs::kEvery);
    }
    for (auto& op : optimizer(held, experts)) ops.push_back(std::move(op));
    return ops;
  }

  std::vector<OpNode> optimizer(std::int64_t held, std::int64_t experts) const {
    std::vector<OpNode> ops;
    const std::int64_t shard = zero_ >= 1 ? dp_group_.size : 1;
    const std::int64_t expert_shard = zero_ >= 1 ? expert_dp_group_.size : 1;
    const std::int64_t updated = (held + shard - 1) / shard + (experts + expert_shard - 1) / expert_shard;
    if (p_.gradient_topk) {
      // Every rank adds all ranks' pairs into its dense gradients before the update.
      std::int64_t pairs = 0;
      if (dp_group_.size > 1 && held > 0) pairs += dp_group_.size * topk_kept(held);
      if (expert_dp_group_.size > 1 && experts > 0) pairs += expert_dp_group_.size * topk_kept(experts);
      OpNode scatter{"topk_scatter_add", Stream::kCompute,
                     compute::estimate_memory_kernel(s_.gpu, {MemoryKernel::kTopkScatterAdd, pairs, grad_dtype(), false}).time};
      scatter.optimizer = true;
      if (pairs > 0) ops.push_back(scatter);
    }
    OpNode adam{"adam", Stream::kCompute, memory(MemoryKernel::kAdamUpdate, updated, false)};
    adam.optimizer = true;
    ops.push_back(adam);
    if (zero_ >= 1 && zero_ <= 2 && !s_.overlap.dp_param_gather) {
      add(ops, comm_op("dp_param_all_gather", Stream::kDp, {Op::kAllGather, dp_group_, Bytes(held * 2), 2}, Join::kNow));
      if (experts > 0) {
        add(ops, comm_op("expert_dp_param_all_gather", Stream::kDp, {Op::kAllGather, expert_dp_group_, Bytes(experts * 2), 2},
                         Join::kNow));
      }
    }
    return ops;
  }

  const Scenario& s_;
  const workload::ModelSpec& m_;
  const workload::ParallelConfig& p_;
  CollectiveTimes& comm_;
  LayerOpsCache* layers_;  ///< layers' ops shared with other candidates (null: built here)
  workload::ParameterCount params_;
  std::int64_t t_ = 1, dp_ = 1, tokens_ = 0, sp_tokens_ = 0;
  std::int64_t attn_cols_ = 0, head_dim_ = 0, ffn_cols_ = 0, up_cols_ = 0, layer_params_ = 0;
  std::vector<ProjectionGemm> qkv_;
  int zero_ = 0;
  GroupShape tp_group_, dp_group_, pp_group_, expert_dp_group_;
  CommCall tp_fwd_in_, tp_fwd_out_;
  std::optional<CpAttentionOps> cp_;  ///< the attention core when cp > 1
  // MoE layers (none for a dense model).
  std::optional<MoeLayer> moe_;
  std::int64_t shared_ffn_cols_ = 0, shared_up_cols_ = 0, moe_layer_params_ = 0;
};

}  // namespace

namespace {

// The profile's training_time_scale, on every compute kernel of a list (communication keeps the
// communication twin's times).
void scale_kernels(std::vector<OpNode>& ops, double scale) {
  if (scale == 1.0) return;
  for (auto& op : ops) {
    if (op.stream == Stream::kCompute && !op.host) op.duration = SimTime::from_seconds(op.duration.seconds() * scale);
  }
}

void scale_kernels(ChunkWork& work, double scale) {
  scale_kernels(work.forward, scale);
  scale_kernels(work.backward, scale);
}

}  // namespace

StepWork build_step_work(const Scenario& scenario, CollectiveTimes& comm, LayerOpsCache* layers) {
  StepWork work = Builder(scenario, comm, layers).build();
  for (auto& stage : work.stages) {
    for (auto& chunk : stage.chunks) {
      scale_kernels(chunk, scenario.gpu.training_time_scale);
      apply_host_issue(chunk, scenario);
    }
    scale_kernels(stage.after_backward, scenario.gpu.training_time_scale);
  }
  return work;
}

ChunkWork build_layer_work(const Scenario& scenario, CollectiveTimes& comm, std::int64_t layer) {
  if (layer < 0 || layer >= scenario.model.layers) {
    throw InputError("--layer", "", "layer " + std::to_string(layer) + " is not in the model's 0.." +
                                        std::to_string(scenario.model.layers - 1));
  }
  ChunkWork work = Builder(scenario, comm).layer(layer);
  scale_kernels(work, scenario.gpu.training_time_scale);
  apply_host_issue(work, scenario);
  return work;
}

SimTime compute_time_of(const std::vector<OpNode>& ops, bool first, bool last) {
  SimTime total;
  for (const auto& op : ops) {
    if (op.stream != Stream::kCompute) continue;
    if (op.occurs == Occurs::kFirstMicroBatch && !first) continue;
    if (op.occurs == Occurs::kLastMicroBatch && !last) continue;
    total += op.duration;
  }
  return total;
}

}  // namespace ctwin::replay
