#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "ctwin/api/eval_context.hpp"
#include "ctwin/plan/plan_bound.hpp"
#include "ctwin/api/scenario.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/replay/layer_ops_cache.hpp"
#include "ctwin/replay/op_graph.hpp"

namespace ctwin::api {
namespace {

void expect_same_ops(const std::vector<replay::OpNode>& a, const std::vector<replay::OpNode>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    SCOPED_TRACE(std::to_string(i) + " " + a[i].name);
    EXPECT_STREQ(a[i].name, b[i].name);
    EXPECT_EQ(a[i].stream, b[i].stream);
    EXPECT_EQ(a[i].duration.ps(), b[i].duration.ps());
    EXPECT_EQ(a[i].join, b[i].join);
    EXPECT_EQ(a[i].occurs, b[i].occurs);
    EXPECT_EQ(a[i].wait_for, b[i].wait_for);
    EXPECT_EQ(a[i].optimizer, b[i].optimizer);
    EXPECT_EQ(a[i].prefetch, b[i].prefetch);
    EXPECT_EQ(a[i].launches, b[i].launches);
    EXPECT_EQ(a[i].host, b[i].host);
    EXPECT_EQ(a[i].grouped, b[i].grouped);
    ASSERT_EQ(a[i].comm.has_value(), b[i].comm.has_value());
    if (a[i].comm) {
      EXPECT_EQ(a[i].comm->op, b[i].comm->op);
      EXPECT_EQ(a[i].comm->group, b[i].comm->group);
      EXPECT_EQ(a[i].comm->size.count(), b[i].comm->size.count());
      EXPECT_EQ(a[i].comm->element_bytes, b[i].comm->element_bytes);
    }
  }
}

// The plan's layer-ops cache (replay/layer_ops_cache.hpp) only saves work: on random candidates
// of one base each (splits with PP, VPP, CP over P2P and all-gather, EP and expert TP, ZeRO 0-3,
// recompute, micro-batch, precision, unfused attention), the step's ops and its bound with one
// cache shared by all the base's candidates equal those built from scratch, field by field and
// bit for bit, and refused candidates are refused with the same message. Bases cover dense,
// MoE with host syncs (dropless dispatch), sliding-window attention, userbuffers TP overlap and
// CUDA graphs, whose ops the cache must not mix up.
TEST(PlanBoundCache, CachedBoundsEqualUncachedOnes) {
  struct Base {
    const char* model;
    std::int64_t seq_len;
    std::vector<std::pair<const char*, nlohmann::json>> settings;
  };
  const std::vector<Base> bases = {
      {"llama3-8b", 8192, {}},
      {"llama2-7b", 4096, {{"overlap.tp_comm", true}, {"overlap.dp_param_gather", true}, {"overlap.pp_p2p", false}}},
      {"mixtral-8x7b", 4096, {}},
      {"qwen3-30b-a3b", 4096, {{"overlap.dp_grad_reduce", false}}},
      {"gpt-oss-120b", 4096, {{"host.cuda_graphs", true}}},
  };
  std::mt19937 random(2026);
  const auto pick = [&random](const std::vector<int>& values) {
    return values[std::uniform_int_distribution<std::size_t>(0, values.size() - 1)(random)];
  };
  const char* recompute[] = {"none", "selective", "full"};
  int compared = 0, refused = 0;
  for (const Base& b : bases) {
    SCOPED_TRACE(b.model);
    Scenario base = Scenario::load(std::string(CTWIN_SOURCE_DIR) + "/scenarios/default.json")
                        .with("model", std::string("models/llm/") + b.model + ".json")
                        .with("training.seq_len", b.seq_len)
                        .with("network", "analytical");
    for (const auto& [path, value] : b.settings) base = base.with(path, value);
    EvalContext context;
    replay::LayerOpsCache cache;
    int built = 0;
    for (int draw = 0; draw < 150; ++draw) {
      const int tp = pick({1, 2, 4, 8}), pp = pick({1, 2, 4}), cp = pick({1, 1, 2}), zero = pick({0, 1, 2, 3});
      const int vpp = pp > 1 ? pick({1, 2}) : 1;
      const int ep = pick({1, 2, 4, 8});
      nlohmann::json parallel = {{"tp", tp},
                                 {"pp", pp},
                                 {"vpp", vpp},
                                 {"cp", cp},
                                 {"cp_comm", pick({0, 1}) ? "p2p" : "all_gather"},
                                 {"ep", ep},
                                 {"expert_tp", ep > 1 ? pick({1, 1, 2}) : 1},
                                 {"dp", "auto"},
                                 {"sequence_parallel", tp > 1 && pick({0, 1, 1}) == 1},
                                 {"zero", zero},
                                 {"distributed_optimizer", zero == 1},
                                 {"recompute", recompute[pick({0, 1, 2})]},
                                 {"schedule", vpp > 1 ? "interleaved" : "1f1b"}};
      Scenario candidate = base.with("parallel", parallel).with("training.micro_batch", pick({1, 2}));
      if (pick({0, 0, 0, 1})) candidate = candidate.with("training.attention", "unfused");
      if (pick({0, 0, 0, 1})) candidate = candidate.with("training.precision", "fp8");
      SCOPED_TRACE(parallel.dump());
      replay::Scenario s;
      try {
        s = candidate.resolve(&context.profiles());
      } catch (const InputError&) {
        continue;  // a split the scenario refuses before any op is built
      }
      std::string fresh_error, cached_error;
      CandidateBound fresh, cached;
      try {
        fresh = bound_candidate(s, context);
      } catch (const InputError& e) {
        fresh_error = e.what();
      }
      try {
        cached = bound_candidate(s, context, &cache);
      } catch (const InputError& e) {
        cached_error = e.what();
      }
      EXPECT_EQ(fresh_error, cached_error);
      if (!fresh_error.empty()) {
        ++refused;
        continue;
      }
      EXPECT_EQ(fresh.step_time.ps(), cached.step_time.ps());
      EXPECT_EQ(fresh.tokens_per_s, cached.tokens_per_s);
      EXPECT_EQ(fresh.mfu, cached.mfu);
      replay::CollectiveTimes comm(s.cluster, s.network, false, context.collectives(s.cluster_key, s.network), s.tuning);
      const replay::StepWork a = replay::build_step_work(s, comm);
      const replay::StepWork c = replay::build_step_work(s, comm, &cache);
      ASSERT_EQ(a.stages.size(), c.stages.size());
      for (std::size_t r = 0; r < a.stages.size(); ++r) {
        ASSERT_EQ(a.stages[r].chunks.size(), c.stages[r].chunks.size());
        for (std::size_t k = 0; k < a.stages[r].chunks.size(); ++k) {
          expect_same_ops(a.stages[r].chunks[k].forward, c.stages[r].chunks[k].forward);
          expect_same_ops(a.stages[r].chunks[k].backward, c.stages[r].chunks[k].backward);
        }
        expect_same_ops(a.stages[r].after_backward, c.stages[r].after_backward);
      }
      EXPECT_EQ(a.p2p.ps(), c.p2p.ps());
      ++compared;
      ++built;
    }
    // The cache is shared: far fewer distinct layers than candidates times layers.
    if (built > 0) { EXPECT_LT(cache.size(), static_cast<std::size_t>(built) * 4) << "layers kept: " << cache.size(); }
  }
  EXPECT_GE(compared, 100);
  RecordProperty("compared", compared);
  RecordProperty("refused", refused);
}

}  // namespace
}  // namespace ctwin::api
