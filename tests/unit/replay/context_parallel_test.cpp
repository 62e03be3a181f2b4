// Context parallelism: the blocks each CP rank computes against a token-by-token count of the
// causal pairs it owns, the ring's bytes, and whole steps with CP (free and real communication).

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "ctwin/replay/context_parallel.hpp"
#include "ctwin/replay/training_step.hpp"

namespace ctwin::replay {
namespace {

using workload::CpComm;

CpAttentionInput input(std::int64_t seq, std::int64_t cp, std::int64_t rank, CpComm comm) {
  return {.micro_batch = 2, .seq_len = seq, .cp = cp, .rank = rank, .heads_q = 8, .heads_kv = 2, .head_dim = 64,
          .comm = comm};
}

double pairs_of(const compute::AttentionShape& s) {
  return compute::flash_attention_forward_flops(s).count() / (4.0 * s.batch * s.heads_q * s.head_dim);
}

/// Token positions of CP rank r under load-balanced chunking: chunks r and 2·cp − 1 − r.
std::vector<std::int64_t> positions(std::int64_t seq, std::int64_t cp, std::int64_t r) {
  const std::int64_t c = seq / (2 * cp);
  std::vector<std::int64_t> out;
  for (const std::int64_t chunk : {r, 2 * cp - 1 - r}) {
    for (std::int64_t i = 0; i < c; ++i) out.push_back(chunk * c + i);
  }
  return out;
}

/// Causal query-key pairs counted one by one, the diagonal as half (the FLOP models' S²/2).
double causal_pairs(const std::vector<std::int64_t>& queries, const std::vector<std::int64_t>& keys) {
  double n = 0;
  for (const auto q : queries) {
    for (const auto k : keys) n += q > k ? 1.0 : q == k ? 0.5 : 0.0;
  }
  return n;
}

TEST(ContextParallel, EachRingBlockIsTheCausalWorkOfTheKvItHolds) {
  for (const std::int64_t cp : {2, 3, 4}) {
    const std::int64_t seq = 24 * cp;
    for (std::int64_t r = 0; r < cp; ++r) {
      const auto plan = plan_cp_attention(input(seq, cp, r, CpComm::kP2p));
      ASSERT_EQ(plan.forward.size(), static_cast<std::size_t>(cp));
      ASSERT_EQ(plan.backward.size(), static_cast<std::size_t>(cp));
      const auto q = positions(seq, cp, r);
      for (std::int64_t i = 0; i < cp; ++i) {
        // Forward step i holds the KV of rank r − i, backward step i that of rank r + i + 1.
        const auto fwd_kv = positions(seq, cp, ((r - i) % cp + cp) % cp);
        const auto bwd_kv = positions(seq, cp, (r + i + 1) % cp);
        EXPECT_DOUBLE_EQ(pairs_of(plan.forward[static_cast<std::size_t>(i)].shape), causal_pairs(q, fwd_kv))
            << "cp " << cp << " rank " << r << " forward step " << i;
        EXPECT_DOUBLE_EQ(pairs_of(plan.backward[static_cast<std::size_t>(i)].shape), causal_pairs(q, bwd_kv))
            << "cp " << cp << " rank " << r << " backward step " << i;
      }
    }
  }
}

TEST(ContextParallel, AllGatherChunksAreTheCausalWorkOfTheirQueries) {
  const std::int64_t cp = 4, seq = 64, c = seq / (2 * cp);
  std::vector<std::int64_t> all(seq);
  for (std::int64_t i = 0; i < seq; ++i) all[static_cast<std::size_t>(i)] = i;
  for (std::int64_t r = 0; r < cp; ++r) {
    const auto plan = plan_cp_attention(input(seq, cp, r, CpComm::kAllGather));
    ASSERT_EQ(plan.forward.size(), 2u);
    const auto q = positions(seq, cp, r);
    const std::vector<std::int64_t> first(q.begin(), q.begin() + c), second(q.begin() + c, q.end());
    EXPECT_DOUBLE_EQ(pairs_of(plan.forward[0].shape), causal_pairs(first, all));
    EXPECT_DOUBLE_EQ(pairs_of(plan.forward[1].shape), causal_pairs(second, all));
    EXPECT_EQ(plan.forward[0].sent, Bytes(0));
  }
}

TEST(ContextParallel, EveryRankDoesOneCpthOfTheCausalAttention) {
  const std::int64_t seq = 8192;
  const compute::AttentionShape whole{2, seq, seq, 8, 2, 64, true, compute::Dtype::kBf16};
  const double full_fwd = compute::flash_attention_forward_flops(whole).count();
  const double full_bwd = compute::flash_attention_backward_flops(whole).count();
  for (const CpComm comm : {CpComm::kP2p, CpComm::kAllGather}) {
    for (const std::int64_t cp : {2, 4, 8, 16}) {
      for (std::int64_t r = 0; r < cp; ++r) {
        const auto plan = plan_cp_attention(input(seq, cp, r, comm));
        double fwd = 0, bwd = 0;
        for (const auto& b : plan.forward) fwd += compute::flash_attention_forward_flops(b.shape).count();
        for (const auto& b : plan.backward) bwd += compute::flash_attention_backward_flops(b.shape).count();
        EXPECT_NEAR(fwd, full_fwd / static_cast<double>(cp), full_fwd * 1e-12) << cp << " rank " << r;
        EXPECT_NEAR(bwd, full_bwd / static_cast<double>(cp), full_bwd * 1e-12) << cp << " rank " << r;
      }
    }
  }
}

TEST(ContextParallel, RingSendsAsManyBytesAsItReceives) {
  for (const std::int64_t cp : {2, 3, 8}) {
    const std::int64_t seq = 4096 * cp;
    // micro-batch 2 · s/cp tokens · (K and V) · 2 heads · 64 dims · 2 bytes
    const Bytes block(2 * (seq / cp) * 2 * 2 * 64 * 2);
    EXPECT_EQ(cp_kv_block_bytes(input(seq, cp, 0, CpComm::kP2p)), block);
    for (std::int64_t r = 0; r < cp; ++r) {
      const auto plan = plan_cp_attention(input(seq, cp, r, CpComm::kP2p));
      Bytes sent, received, sent_bwd, received_bwd;
      for (const auto& b : plan.forward) sent += b.sent, received += b.received;
      for (const auto& b : plan.backward) sent_bwd += b.sent, received_bwd += b.received;
      EXPECT_EQ(sent, received);
      EXPECT_EQ(sent, block * (cp - 1)) << "forward: the other cp − 1 ranks' KV pass by";
      EXPECT_EQ(sent_bwd, received_bwd);
      EXPECT_EQ(sent_bwd, block * (2 * (cp - 1))) << "backward: KV again and the dKV going home";
      EXPECT_EQ(plan.forward.back().sent, Bytes(0)) << "nothing left to pass at the last forward step";
    }
  }
}

Scenario scenario(const std::vector<std::string>& overrides) {
  return load_scenario(std::string(CTWIN_SOURCE_DIR) + "/scenarios/default.json", CTWIN_SOURCE_DIR, overrides);
}

std::map<std::string, int> op_counts(const std::vector<OpNode>& ops) {
  std::map<std::string, int> n;
  for (const auto& op : ops) ++n[op.name];
  return n;
}

TEST(ContextParallel, OpGraphHasOneRingPerLayerAndPass) {
  const Scenario s = scenario({"parallel.cp=4", "gpus=128", "network=\"analytical\""});
  const auto step = simulate_step(s);
  const auto& chunk = step.work.stages.front().chunks.front();
  const int layers = static_cast<int>(s.model.layers / s.split.pp);
  auto fwd = op_counts(chunk.forward);
  auto bwd = op_counts(chunk.backward);
  EXPECT_EQ(fwd["cp_attention_block"], 4 * layers);
  EXPECT_EQ(fwd["cp_send_kv"], 3 * layers);
  EXPECT_EQ(fwd["flash_attention"], 0);
  EXPECT_EQ(bwd["cp_attention_block_bwd"], 4 * layers);
  EXPECT_EQ(bwd["cp_send_kv_dkv"], 4 * layers);
  // Selective recompute (the default scenario's) repeats the forward ring before the backward.
  EXPECT_EQ(bwd["cp_attention_block_recompute"], 4 * layers);
  EXPECT_EQ(bwd["cp_send_kv_recompute"], 3 * layers);
}

TEST(ContextParallel, WithoutPipelineAndFreeCommunicationStepIsTheSumOfKernelTimes) {
  for (const std::string comm : {"p2p", "all_gather"}) {
    const Scenario s = scenario({"parallel.pp=1", "parallel.cp=2", "parallel.cp_comm=\"" + comm + "\""});
    const auto step = simulate_step(s, {.free_communication = true});
    const auto& stage = step.work.stages.front();
    const std::int64_t m = step.work.micro_batches;
    SimTime kernels = compute_time_of(stage.after_backward, true, true);
    for (std::int64_t i = 0; i < m; ++i) {
      kernels += compute_time_of(stage.chunks[0].forward, i == 0, i == m - 1);
      kernels += compute_time_of(stage.chunks[0].backward, i == 0, i == m - 1);
    }
    EXPECT_EQ(step.replay.step_time, kernels) << comm;
    EXPECT_NEAR(step.report.breakdown.exposed_comm_s.cp, 0, 1e-15);
  }
}

TEST(ContextParallel, TwiceTheGpusOnTheSameSequencesIsFasterButNotTwiceAsFast) {
  // Same dp and micro-batches; CP halves every kernel's tokens and the attention's FLOPs, and
  // smaller GEMMs are no more efficient, so the step shrinks by at most half.
  const auto one = simulate_step(scenario({"parallel.pp=1", "gpus=32"}), {.free_communication = true});
  const auto two = simulate_step(scenario({"parallel.pp=1", "gpus=64", "parallel.cp=2"}), {.free_communication = true});
  ASSERT_EQ(one.report.dp, two.report.dp);
  EXPECT_LT(two.replay.step_time, one.replay.step_time);
  EXPECT_GE(two.replay.step_time.seconds(), one.replay.step_time.seconds() / 2);
}

TEST(ContextParallel, AtTheSameTokensPerRankOnlyTheAttentionGrows) {
  // cp 2 on 8192-token sequences against cp 1 on 4096: every kernel but attention sees the same
  // 4096 tokens, while a CP rank's attention is half of an 8192 triangle, twice a 4096 one.
  const auto plain = simulate_step(scenario({"parallel.pp=1", "gpus=32", "training.seq_len=4096"}),
                                   {.free_communication = true});
  const auto cp = simulate_step(scenario({"parallel.pp=1", "gpus=64", "parallel.cp=2"}), {.free_communication = true});
  const auto other_kernels = [](const ChunkWork& w) {
    SimTime t;
    for (const auto* list : {&w.forward, &w.backward}) {
      for (const auto& op : *list) {
        const std::string name = op.name;
        if (op.stream == Stream::kCompute && name.find("attention") == std::string::npos) t += op.duration;
      }
    }
    return t;
  };
  EXPECT_EQ(other_kernels(plain.work.stages[0].chunks[0]), other_kernels(cp.work.stages[0].chunks[0]));
  EXPECT_GT(cp.replay.step_time, plain.replay.step_time);
  EXPECT_GE(cp.report.model_flops_per_step, 2 * plain.report.model_flops_per_step);
}

SimTime cp_busy(const ReplayResult& r) {
  SimTime t;
  for (const auto& rank : r.ranks) {
    for (const auto& b : rank.busy) {
      if (b.stream == Stream::kCp) t += b.end - b.start;
    }
  }
  return t;
}

TEST(ContextParallel, RingHidesWhatAllGatherExposes) {
  // 8192 tokens over cp 2 inside one NVLink node: each ring transfer is shorter than its block.
  const auto ring = simulate_step(scenario({"parallel.cp=2", "gpus=128", "network=\"analytical\""}));
  const auto gather =
      simulate_step(scenario({"parallel.cp=2", "gpus=128", "network=\"analytical\"", "parallel.cp_comm=\"all_gather\""}));
  const double ranks = static_cast<double>(ring.replay.ranks.size());
  const double ring_busy = cp_busy(ring.replay).seconds() / ranks;
  const double gather_busy = cp_busy(gather.replay).seconds() / ranks;
  ASSERT_GT(ring_busy, 0);
  // All-gather and reduce-scatter hold the compute: every second of them is exposed (only TP,
  // which never runs beside them, ranks before CP in the attribution).
  EXPECT_NEAR(gather.report.breakdown.exposed_comm_s.cp, gather_busy, gather_busy * 1e-9);
  EXPECT_LT(ring.report.breakdown.exposed_comm_s.cp, 0.1 * ring_busy);
  EXPECT_LT(ring.report.step_time_s, gather.report.step_time_s);
}

TEST(ContextParallel, CpOneIsUnchangedByTheCommunicationType) {
  const auto p2p = simulate_step(scenario({"parallel.cp=1"}));
  const auto gather = simulate_step(scenario({"parallel.cp=1", "parallel.cp_comm=\"all_gather\""}));
  EXPECT_EQ(p2p.replay.step_time, gather.replay.step_time);
  for (const auto& op : p2p.work.stages.front().chunks.front().forward) EXPECT_NE(op.stream, Stream::kCp);
}

}  // namespace
}  // namespace ctwin::replay
