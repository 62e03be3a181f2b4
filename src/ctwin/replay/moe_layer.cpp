#include "ctwin/replay/moe_layer.hpp"

#include <algorithm>

#include "ctwin/compute/gemm_model.hpp"
#include "ctwin/compute/kernel_estimate.hpp"
#include "ctwin/replay/gemm_dtype.hpp"
#include "ctwin/workload/parameter_count.hpp"

namespace ctwin::replay {
namespace {

using collectives::Op;
using compute::GroupedTokens;
using compute::MemoryKernel;

constexpr int kActivationBytes = 2;  // bf16 tokens on the wire, fp8 training included

int add(std::vector<OpNode>& ops, OpNode op) {
  ops.push_back(op);
  return static_cast<int>(ops.size()) - 1;
}

}  // namespace

std::int64_t MoeRankShape::rows() const {
  std::int64_t total = 0;
  for (const std::int64_t r : rows_per_expert) total += r;
  return total;
}

MoeRankShape moe_rank_shape(const workload::ModelSpec& model, const workload::ParallelConfig& split) {
  const workload::MoeSpec& moe = model.moe;
  MoeRankShape shape;
  const std::int64_t tokens = split.micro_batch * split.seq_len / split.cp;
  shape.local_tokens = split.sequence_parallel ? tokens / split.tp : tokens;
  shape.local_experts = moe.experts / split.ep;
  // Balanced routing: the EP peers' copies for this rank's experts add up to its own n·k, and the
  // expert-TP all-gather brings the e ranks' rows together.
  const std::int64_t rows = shape.local_tokens * moe.top_k * split.expert_tp;
  const std::int64_t base = rows / shape.local_experts;
  const std::int64_t extra = rows % shape.local_experts;
  for (std::int64_t e = 0; e < shape.local_experts; ++e) shape.rows_per_expert.push_back(base + (e < extra ? 1 : 0));
  shape.expert_cols = moe.expert_ffn_hidden / split.expert_tp;
  shape.fc1_cols = (model.activation == workload::Activation::kSwiglu ? 2 : 1) * shape.expert_cols;
  shape.all_to_all = Bytes(shape.local_tokens * moe.top_k * model.hidden * kActivationBytes);
  shape.expert_tp_gather = Bytes(shape.all_to_all.count() * split.expert_tp);
  return shape;
}

MoeGroups moe_groups(const workload::ParallelConfig& split, std::int64_t gpus) {
  MoeGroups g;
  g.expert_tp = {split.expert_tp, 1};
  g.ep = {split.ep, split.expert_tp};
  g.expert_dp = {split.expert_data_parallel(gpus), split.expert_tp * split.ep};
  return g;
}

MoeLayer::MoeLayer(const Scenario& scenario, CollectiveTimes& comm)
    : s_(scenario), shape_(moe_rank_shape(scenario.model, scenario.split)),
      groups_(moe_groups(scenario.split, scenario.gpus)), dtype_(gemm_dtype(scenario.split.precision)),
      overlap_shared_(scenario.overlap.moe_shared_expert) {
  for (auto [slot, call] : {std::pair{&all_to_all_, CommCall{Op::kAlltoall, groups_.ep, shape_.all_to_all, kActivationBytes}},
                            std::pair{&expert_tp_gather_, CommCall{Op::kAllGather, groups_.expert_tp, shape_.expert_tp_gather,
                                                                   kActivationBytes}},
                            std::pair{&expert_tp_reduce_scatter_, CommCall{Op::kReduceScatter, groups_.expert_tp,
                                                                           shape_.expert_tp_gather, kActivationBytes}}}) {
    *slot = comm.timed(call);
  }
  const double load = scenario.moe_runtime.expert_load();
  // fp8 grouped GEMMs take each expert's rows padded to the recipe's multiple (stack_profile.hpp).
  const std::int64_t pad = scenario.stack && dtype_ == compute::Dtype::kFp8 ? scenario.stack->pad_rows : 1;
  for (const std::int64_t rows : shape_.rows_per_expert) {
    const auto busy = static_cast<std::int64_t>(static_cast<double>(rows) * load + 0.5);
    busy_rows_.push_back((busy + pad - 1) / pad * pad);
    busy_total_ += busy_rows_.back();
  }
  if (scenario.stack) expert_scale_ = scenario.stack->expert_time_scale;
  const workload::ParameterCount params = workload::count_parameters(scenario.model);
  expert_params_ = shape_.local_experts * params.layer.expert / scenario.split.expert_tp;
  router_params_ = params.layer.router;
}

SimTime MoeLayer::gemm(std::int64_t m, std::int64_t n, std::int64_t k, compute::Dtype dtype) const {
  return compute::estimate_gemm(s_.gpu, {m, n, k, dtype}).time;
}

SimTime MoeLayer::grouped(std::int64_t n, std::int64_t k, GroupedTokens along) const {
  const compute::GroupedGemmShape shape{busy_rows_, n, k, dtype_, along};
  const bool loop = s_.stack && s_.stack->expert_gemms == ExpertGemms::kPerExpert;
  const SimTime rows = expert(loop ? compute::estimate_grouped_gemm(s_.gpu, shape).time
                                   : compute::estimate_grouped_gemm_rows(s_.gpu, shape));
  // Zero without a stack or with no overhead: the sum below is skipped, so those steps keep their bits.
  if (!s_.stack || s_.stack->per_expert_overhead == SimTime()) return rows;
  return rows + s_.stack->per_expert_overhead * static_cast<std::int64_t>(grouped_launches());
}

SimTime MoeLayer::expert(SimTime t) const {
  return expert_scale_ == 1.0 ? t : SimTime::from_seconds(t.seconds() * expert_scale_);
}

void MoeLayer::quantize(std::vector<OpNode>& ops, const char* name, std::int64_t elements, bool backward,
                        int wait_for) const {
  if (!s_.stack || dtype_ != compute::Dtype::kFp8) return;
  const double per_element = backward ? s_.stack->quantize_bytes_backward : s_.stack->quantize_bytes_forward;
  if (per_element <= 0) return;
  const Bytes bytes(static_cast<std::int64_t>(per_element * static_cast<double>(elements) + 0.5));
  const int launches = std::max(s_.stack->quantize_launches, 1);
  OpNode op{name, Stream::kCompute,
            expert(compute::roofline_kernel(s_.gpu, FlopCount(0), FlopRate::per_second(1), 1.0, bytes, launches).time)};
  op.launches = launches;
  op.wait_for = wait_for;
  ops.push_back(op);
}

void MoeLayer::aux_loss(std::vector<OpNode>& ops, bool backward) const {
  if (!s_.stack) return;
  const int launches = backward ? s_.stack->aux_loss_launches_backward : s_.stack->aux_loss_launches_forward;
  if (launches <= 0) return;
  // Tokens per expert and the mean probabilities: one pass over the n × E fp32 scores each way.
  OpNode op{backward ? "router_aux_loss_bwd" : "router_aux_loss", Stream::kCompute,
            memory(MemoryKernel::kSoftmax, shape_.local_tokens * s_.model.moe.experts, backward)};
  op.launches = launches;
  ops.push_back(op);
}

OpNode MoeLayer::grouped_op(const char* name, SimTime time) const {
  OpNode op{name, Stream::kCompute, time};
  op.launches = grouped_launches();
  op.grouped = true;
  return op;
}

int MoeLayer::grouped_launches() const {
  int active = 0;
  for (const std::int64_t rows : busy_rows_) active += rows > 0 ? 1 : 0;
  return active > 0 ? active : 1;
}

compute::PermuteShape MoeLayer::permute_shape(compute::PermutePass pass) const {
  const auto path = s_.moe_runtime.permute_fusion ? compute::PermutePath::kFused : compute::PermutePath::kUnfused;
  return {path, pass, shape_.local_tokens * s_.model.moe.top_k, s_.model.hidden, s_.model.moe.top_k, kActivationBytes};
}

OpNode MoeLayer::permute_op(const char* name, compute::PermutePass pass) const {
  const compute::PermuteShape shape = permute_shape(pass);
  OpNode op{name, Stream::kCompute, expert(compute::estimate_permute(s_.gpu, shape).time)};
  op.launches = compute::permute_launches(shape);
  return op;
}

SimTime MoeLayer::memory(MemoryKernel kind, std::int64_t elements, bool backward) const {
  return compute::estimate_memory_kernel(s_.gpu, {kind, elements, compute::Dtype::kBf16, backward}).time;
}

OpNode MoeLayer::on_ep(const char* name, const TimedCall& c, Join join) {
  return communication_op(name, Stream::kEp, c, join);
}

void MoeLayer::forward(std::vector<OpNode>& ops, const SharedForward& shared) const {
  const std::int64_t h = s_.model.hidden;
  const std::int64_t n = shape_.local_tokens;
  const bool swiglu = s_.model.activation == workload::Activation::kSwiglu;
  // The router is a plain bf16 linear layer in Megatron-Core, also in fp8 training.
  add(ops, {"router_gemm", Stream::kCompute, gemm(n, s_.model.moe.experts, h, compute::Dtype::kBf16)});
  OpNode topk{"router_topk", Stream::kCompute, memory(MemoryKernel::kSoftmax, n * s_.model.moe.experts, false)};
  topk.launches = 4;  // fp32 cast, softmax, top-k, probabilities (moe_layer.hpp)
  add(ops, topk);
  aux_loss(ops, false);
  // A dropless dispatcher learns the tokens per expert on the host before it permutes.
  const bool sync = !s_.cuda_graphs && s_.moe_runtime.capacity_factor <= 0 && (!s_.stack || s_.stack->dispatcher_sync);
  if (sync) {
    OpNode wait{"moe_dispatch_sync", Stream::kCompute, SimTime()};
    wait.host = true;
    // tokens per expert, their EP all-gather, the device-to-host copy (DeepEP: one notify kernel)
    wait.launches = s_.stack ? s_.stack->dispatch_launches() : 3;
    add(ops, wait);
  }
  OpNode permute = permute_op("moe_permute", compute::PermutePass::kPermute);
  // The host's work between the wait and this launch: the GPU idles for all of it.
  if (sync && s_.stack) permute.host_extra = s_.stack->host_after_sync;
  add(ops, permute);
  // With the overlap, the compute stream runs the shared experts while the tokens travel.
  const Join travel = overlap_shared_ ? Join::kTaskEnd : Join::kNow;
  int arrived = add(ops, on_ep("ep_dispatch_all_to_all", all_to_all_, travel));
  if (groups_.expert_tp.size > 1) arrived = add(ops, on_ep("expert_tp_all_gather", expert_tp_gather_, travel));
  shared(ops);
  quantize(ops, "expert_fc1_fp8_cast", busy_total_ * h, false, overlap_shared_ ? arrived : -1);
  OpNode fc1{"expert_fc1_grouped_gemm", Stream::kCompute, grouped(shape_.fc1_cols, h, GroupedTokens::kM), Join::kNow,
             Occurs::kEvery, overlap_shared_ ? arrived : -1};
  fc1.launches = grouped_launches();
  fc1.grouped = true;
  add(ops, fc1);
  add(ops, {swiglu ? "expert_swiglu" : "expert_gelu", Stream::kCompute,
            expert(memory(swiglu ? MemoryKernel::kSwiGlu : MemoryKernel::kGelu, busy_total_ * shape_.expert_cols, false))});
  quantize(ops, "expert_fc2_fp8_cast", busy_total_ * shape_.expert_cols, false);
  OpNode fc2{"expert_fc2_grouped_gemm", Stream::kCompute, grouped(h, shape_.expert_cols, GroupedTokens::kM)};
  fc2.launches = grouped_launches();
  fc2.grouped = true;
  add(ops, fc2);
  if (groups_.expert_tp.size > 1) add(ops, on_ep("expert_tp_reduce_scatter", expert_tp_reduce_scatter_));
  add(ops, on_ep("ep_combine_all_to_all", all_to_all_));
  add(ops, permute_op("moe_unpermute", compute::PermutePass::kUnpermute));
}

int MoeLayer::backward(std::vector<OpNode>& ops, const SharedBackward& shared) const {
  const std::int64_t h = s_.model.hidden;
  const std::int64_t n = shape_.local_tokens;
  const bool swiglu = s_.model.activation == workload::Activation::kSwiglu;
  add(ops, permute_op("moe_unpermute_bwd", compute::PermutePass::kUnpermuteBackward));
  add(ops, on_ep("ep_combine_all_to_all_bwd", all_to_all_));
  if (groups_.expert_tp.size > 1) add(ops, on_ep("expert_tp_all_gather_bwd", expert_tp_gather_));
  // Each grouped GEMM has a data-gradient GEMM (tokens along M) and a weight-gradient GEMM per
  // expert (tokens along K: the reduction).
  quantize(ops, "expert_fc2_grad_fp8_cast", busy_total_ * h, true);
  add(ops, grouped_op("expert_fc2_dgrad", grouped(shape_.expert_cols, h, GroupedTokens::kM)));
  add(ops, grouped_op("expert_fc2_wgrad", grouped(h, shape_.expert_cols, GroupedTokens::kK)));
  add(ops, {swiglu ? "expert_swiglu_bwd" : "expert_gelu_bwd", Stream::kCompute,
            expert(memory(swiglu ? MemoryKernel::kSwiGlu : MemoryKernel::kGelu, busy_total_ * shape_.expert_cols, true))});
  quantize(ops, "expert_fc1_grad_fp8_cast", busy_total_ * shape_.fc1_cols, true);
  add(ops, grouped_op("expert_fc1_dgrad", grouped(h, shape_.fc1_cols, GroupedTokens::kM)));
  add(ops, grouped_op("expert_fc1_wgrad", grouped(shape_.fc1_cols, h, GroupedTokens::kK)));
  const Join travel = overlap_shared_ ? Join::kTaskEnd : Join::kNow;
  int back = -1;
  if (groups_.expert_tp.size > 1) back = add(ops, on_ep("expert_tp_reduce_scatter_bwd", expert_tp_reduce_scatter_, travel));
  back = add(ops, on_ep("ep_dispatch_all_to_all_bwd", all_to_all_, travel));
  const int shared_wait = shared(ops);
  OpNode permute_bwd = permute_op("moe_permute_bwd", compute::PermutePass::kPermuteBackward);
  permute_bwd.wait_for = overlap_shared_ ? back : -1;
  add(ops, permute_bwd);
  OpNode topk{"router_topk_bwd", Stream::kCompute, memory(MemoryKernel::kSoftmax, n * s_.model.moe.experts, true)};
  topk.launches = 7;  // the loss seed, top-k (2), softmax and cast backward, two accumulations
  add(ops, topk);
  aux_loss(ops, true);
  add(ops, {"router_dgrad", Stream::kCompute, gemm(n, h, s_.model.moe.experts, compute::Dtype::kBf16)});
  add(ops, {"router_wgrad", Stream::kCompute, gemm(h, s_.model.moe.experts, n, compute::Dtype::kBf16)});
  return shared_wait;
}

}  // namespace ctwin::replay
