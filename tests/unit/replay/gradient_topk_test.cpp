// Top-k gradient sparsification (training.gradient_topk): what each DP reduction becomes, its
// bytes against the closed form, where it pays and where the all-gather outgrows the dense
// reduction, and the inputs it refuses.

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "ctwin/compute/memory_kernels.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/replay/comm_groups.hpp"
#include "ctwin/replay/op_graph.hpp"
#include "ctwin/replay/training_step.hpp"
#include "test_scenario.hpp"

namespace ctwin::replay {
namespace {

// Pure data parallelism over 8 GPUs (ZeRO 1), gradients reduced once at the step's end.
std::vector<std::string> dp8(std::vector<std::string> more = {}) {
  std::vector<std::string> out{"gpus=8", "parallel.tp=1", "parallel.pp=1", "parallel.sequence_parallel=false",
                               "training.global_batch=8", "overlap.dp_grad_reduce=false"};
  out.insert(out.end(), more.begin(), more.end());
  return out;
}

std::vector<const OpNode*> named(const std::vector<OpNode>& ops, const std::string& name) {
  std::vector<const OpNode*> out;
  for (const auto& op : ops) {
    if (name == op.name) out.push_back(&op);
  }
  return out;
}

// The dense reduce_scatter of P fp32 gradients becomes a selection pass over P elements and an
// all_gather of N·k (value, index) pairs, k = round(d·P), 8 bytes each; the optimizer adds the
// N·k pairs into dense gradients first.
TEST(GradientTopk, EachReductionIsASelectionAndAnAllGatherOfEveryRanksPairs) {
  const Scenario dense_s = scenario(dp8());
  const Scenario sparse_s = scenario(dp8({"training.gradient_topk=0.01"}));
  CollectiveTimes comm(dense_s.cluster, network::ModelKind::kAnalytical, true);
  const StepWork dense = build_step_work(dense_s, comm);
  const StepWork sparse = build_step_work(sparse_s, comm);
  const auto dense_reduce = named(dense.stages[0].after_backward, "dp_grad_reduce");
  const auto sparse_reduce = named(sparse.stages[0].after_backward, "dp_grad_reduce");
  ASSERT_EQ(dense_reduce.size(), 1u);
  ASSERT_EQ(sparse_reduce.size(), 1u);
  ASSERT_TRUE(dense_reduce[0]->comm && sparse_reduce[0]->comm);
  EXPECT_EQ(dense_reduce[0]->comm->op, collectives::Op::kReduceScatter);
  EXPECT_EQ(sparse_reduce[0]->comm->op, collectives::Op::kAllGather);
  const std::int64_t parameters = dense_reduce[0]->comm->size.count() / 4;
  const std::int64_t kept = std::llround(0.01 * static_cast<double>(parameters));
  EXPECT_EQ(sparse_reduce[0]->comm->size.count(), 8 * kept * 8);
  const auto select = named(sparse.stages[0].after_backward, "topk_compress");
  ASSERT_EQ(select.size(), 1u);
  const auto& gpu = sparse_s.gpu;
  EXPECT_EQ(select[0]->duration,
            compute::estimate_memory_kernel(gpu, {compute::MemoryKernel::kTopkCompress, parameters, compute::Dtype::kTf32}).time);
  const auto scatter = named(sparse.stages[0].after_backward, "topk_scatter_add");
  ASSERT_EQ(scatter.size(), 1u);
  EXPECT_TRUE(scatter[0]->optimizer);
  EXPECT_EQ(scatter[0]->duration,
            compute::estimate_memory_kernel(gpu, {compute::MemoryKernel::kTopkScatterAdd, 8 * kept, compute::Dtype::kTf32}).time);
  EXPECT_TRUE(named(dense.stages[0].after_backward, "topk_compress").empty());
  // Bytes per kernel element: e + 12, e the gradient's 4 bytes here and 2 in bf16.
  EXPECT_EQ(compute::memory_kernel_bytes({compute::MemoryKernel::kTopkCompress, 1000, compute::Dtype::kTf32}).count(), 16000);
  EXPECT_EQ(compute::memory_kernel_bytes({compute::MemoryKernel::kTopkScatterAdd, 1000, compute::Dtype::kBf16}).count(), 14000);
}

// Overlapped, per layer on the last micro-batch: every dense reduction has its sparse twin.
TEST(GradientTopk, OverlappedReductionsAreSparsePerLayer) {
  const Scenario dense_s = scenario(dp8({"overlap.dp_grad_reduce=true", "training.grad_reduce_in_fp32=false"}));
  const Scenario sparse_s =
      scenario(dp8({"overlap.dp_grad_reduce=true", "training.grad_reduce_in_fp32=false", "training.gradient_topk=0.001"}));
  CollectiveTimes comm(dense_s.cluster, network::ModelKind::kAnalytical, true);
  const StepWork dense_work = build_step_work(dense_s, comm);
  const StepWork sparse_work = build_step_work(sparse_s, comm);
  const auto& dense = dense_work.stages[0].chunks[0].backward;
  const auto& sparse = sparse_work.stages[0].chunks[0].backward;
  const auto d = named(dense, "dp_grad_reduce");
  const auto s = named(sparse, "dp_grad_reduce");
  ASSERT_EQ(d.size(), s.size());
  ASSERT_FALSE(d.empty());
  for (std::size_t i = 0; i < d.size(); ++i) {
    const std::int64_t parameters = d[i]->comm->size.count() / 2;  // bf16 gradients
    const std::int64_t kept = std::max<std::int64_t>(1, std::llround(0.001 * static_cast<double>(parameters)));
    EXPECT_EQ(s[i]->comm->size.count(), 8 * kept * (2 + 4));
    EXPECT_EQ(s[i]->occurs, Occurs::kLastMicroBatch);
  }
  const auto selects = named(sparse, "topk_compress");
  ASSERT_EQ(selects.size(), d.size());
  for (const auto* op : selects) EXPECT_EQ(op->occurs, Occurs::kLastMicroBatch);
}

// Dense reduce_scatter moves (N−1)/N·P·4 bytes a rank, the all-gather (N−1)·d·P·8: on 10 Gb/s
// NICs, where the reduction is exposed, 0.1 % (0.5 P·8/8 against 4 P) shortens the exposed DP time
// and 1 % (5.04 P) lengthens it, as the closed form's bytes order them.
TEST(GradientTopk, ItPaysOnlyWhileTheAllGatherMovesLessThanTheDenseReduction) {
  const auto exposed_dp = [](const std::string& density) {
    std::vector<std::string> set = dp8({"gpus=64", "training.global_batch=64", "cluster.server.nics.bandwidth=10Gbps"});
    if (!density.empty()) set.push_back("training.gradient_topk=" + density);
    const Scenario s = scenario(set);
    return simulate_step(s).report.breakdown.exposed_comm_s.dp;
  };
  const double dense = exposed_dp("");
  const double sparse_enough = exposed_dp("0.001");
  const double too_dense = exposed_dp("0.01");
  ASSERT_GT(dense, 0);
  EXPECT_LT(sparse_enough, dense);
  EXPECT_GT(too_dense, dense);
}

TEST(GradientTopk, BadValuesAndZeroThreeAreRefusedNamingTheField) {
  for (const char* bad : {"training.gradient_topk=0", "training.gradient_topk=1.5", "training.gradient_topk=\"1%\""}) {
    try {
      (void)scenario(dp8({bad}));
      FAIL() << bad;
    } catch (const InputError& error) {
      EXPECT_NE(std::string(error.what()).find("gradient_topk"), std::string::npos) << error.what();
    }
  }
  try {
    const Scenario s = scenario(dp8({"training.gradient_topk=0.01", "parallel.zero=3", "parallel.distributed_optimizer=false"}));
    (void)simulate_step(s);
    FAIL() << "zero 3 with top-k";
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find("gradient_topk"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace ctwin::replay
