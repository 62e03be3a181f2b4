#include "ctwin/replay/context_parallel.hpp"

#include "ctwin/compute/dtype.hpp"
#include "ctwin/core/error.hpp"

namespace ctwin::replay {
namespace {

using collectives::Op;
using workload::CpComm;

compute::AttentionShape shape(const CpAttentionInput& in, std::int64_t seq_q, std::int64_t seq_kv, bool causal) {
  return {in.micro_batch, seq_q, seq_kv, in.heads_q, in.heads_kv, in.head_dim, causal, in.dtype};
}

/// TE's p2p forward and backward blocks of rank `in.rank` (the header's table).
CpAttentionPlan ring_plan(const CpAttentionInput& in) {
  const std::int64_t local = in.seq_len / in.cp;  // 2 chunks
  const std::int64_t chunk = local / 2;
  const Bytes kv = cp_kv_block_bytes(in);
  CpAttentionPlan plan;
  // Forward step i uses the KV of CP rank r − i: the diagonal at i = 0, then "lower-triangle"
  // while r − i ≥ 0 (i ≤ r), "upper-triangle" after the ring wraps (i > r).
  for (std::int64_t i = 0; i < in.cp; ++i) {
    CpBlock b;
    if (i == 0) b.shape = shape(in, local, local, true);
    else if (i <= in.rank) b.shape = shape(in, local, chunk, false);
    else b.shape = shape(in, chunk, local, false);
    if (i < in.cp - 1) b.sent = b.received = kv;
    plan.forward.push_back(b);
  }
  // Backward step i uses the KV of CP rank r + i + 1 (the buffer goes round once more), the
  // diagonal last; TE: "lower-triangle" when i ≥ cp − r − 1. Sends: KV at i = 0, KV + dKV in
  // between, dKV only at i = cp − 1 (for cp = 2, KV then dKV).
  for (std::int64_t i = 0; i < in.cp; ++i) {
    CpBlock b;
    if (i == in.cp - 1) b.shape = shape(in, local, local, true);
    else if (i >= in.cp - in.rank - 1) b.shape = shape(in, local, chunk, false);
    else b.shape = shape(in, chunk, local, false);
    b.sent = b.received = (i == 0 || i == in.cp - 1) ? kv : kv + kv;
    plan.backward.push_back(b);
  }
  return plan;
}

/// TE's all_gather: the rank's two query chunks r and 2·cp − 1 − r against every key up to them.
CpAttentionPlan gather_plan(const CpAttentionInput& in) {
  const std::int64_t chunk = in.seq_len / (2 * in.cp);
  CpAttentionPlan plan;
  for (const std::int64_t id : {in.rank, 2 * in.cp - 1 - in.rank}) {
    CpBlock b;
    b.shape = shape(in, chunk, (id + 1) * chunk, true);
    plan.forward.push_back(b);
    plan.backward.push_back(b);
  }
  // K and V of the whole sequence, gathered from every rank's s/cp tokens; dK, dV the same size.
  plan.gathered = cp_kv_block_bytes(in) * in.cp;
  plan.scattered = plan.gathered;
  return plan;
}

}  // namespace

Bytes cp_kv_block_bytes(const CpAttentionInput& in) {
  return Bytes(in.micro_batch * (in.seq_len / in.cp) * 2 * in.heads_kv * in.head_dim *
               static_cast<std::int64_t>(compute::dtype_bytes(in.dtype)));
}

CpAttentionPlan plan_cp_attention(const CpAttentionInput& in) {
  CTWIN_ASSERT(in.cp >= 1 && in.seq_len % (2 * in.cp) == 0, "workload::validate checks seq_len against 2·cp");
  CTWIN_ASSERT(in.rank >= 0 && in.rank < in.cp, "a CP rank is in 0..cp−1");
  return in.comm == CpComm::kP2p ? ring_plan(in) : gather_plan(in);
}

CpAttentionOps::CpAttentionOps(const compute::GpuSpec& gpu, const CpAttentionInput& in, GroupShape group,
                               CollectiveTimes& comm)
    : plan_(plan_cp_attention(in)), comm_type_(in.comm) {
  // The ring shift (every rank sends to the next, receives from the previous) is nccl-tests'
  // sendrecv over the group; element size 2 for the bf16 buffers.
  const int element = static_cast<int>(compute::dtype_bytes(in.dtype));
  for (const auto& b : plan_.forward) {
    forward_.push_back({compute::estimate_flash_attention_forward(gpu, b.shape).time,
                        comm.timed({Op::kSendRecv, group, b.sent, element})});
  }
  for (const auto& b : plan_.backward) {
    backward_.push_back({compute::estimate_flash_attention_backward(gpu, b.shape).time,
                         comm.timed({Op::kSendRecv, group, b.sent, element})});
  }
  gather_ = comm.timed({Op::kAllGather, group, plan_.gathered, element});
  scatter_ = comm.timed({Op::kReduceScatter, group, plan_.scattered, element});
}

// Step i: post step i's transfer on the CP stream, compute block i once step i − 1's transfer
// (which brought block i's KV) is done. After the last block, whatever it sent must arrive before
// the layer goes on (backward: the rank's own dKV comes home).
void CpAttentionOps::ring(std::vector<OpNode>& ops, const std::vector<Step>& steps, const char* block,
                          const char* send) const {
  int previous = -1;
  for (const auto& step : steps) {
    int transfer = -1;
    if (step.transfer.time > SimTime()) {
      ops.push_back(communication_op(send, Stream::kCp, step.transfer, Join::kTaskEnd));
      transfer = static_cast<int>(ops.size()) - 1;
    }
    ops.push_back({block, Stream::kCompute, step.compute, Join::kNow, Occurs::kEvery, previous});
    previous = transfer;
  }
  if (previous >= 0) ops.push_back({"cp_wait", Stream::kCompute, SimTime(), Join::kNow, Occurs::kEvery, previous});
}

void CpAttentionOps::forward(std::vector<OpNode>& ops, bool recompute) const {
  if (comm_type_ == CpComm::kP2p) {
    ring(ops, forward_, recompute ? "cp_attention_block_recompute" : "cp_attention_block",
         recompute ? "cp_send_kv_recompute" : "cp_send_kv");
    return;
  }
  ops.push_back(communication_op("cp_kv_all_gather", Stream::kCp, gather_, Join::kNow));
  for (const auto& step : forward_) {
    ops.push_back({recompute ? "cp_attention_chunk_recompute" : "cp_attention_chunk", Stream::kCompute, step.compute});
  }
}

void CpAttentionOps::backward(std::vector<OpNode>& ops) const {
  if (comm_type_ == CpComm::kP2p) {
    ring(ops, backward_, "cp_attention_block_bwd", "cp_send_kv_dkv");
    return;
  }
  ops.push_back(communication_op("cp_kv_all_gather", Stream::kCp, gather_, Join::kNow));
  for (const auto& step : backward_) ops.push_back({"cp_attention_chunk_bwd", Stream::kCompute, step.compute});
  ops.push_back(communication_op("cp_dkv_reduce_scatter", Stream::kCp, scatter_, Join::kNow));
}

}  // namespace ctwin::replay
