#include "ctwin/replay/schedule.hpp"

#include <algorithm>

#include "ctwin/core/error.hpp"

namespace ctwin::replay {
namespace {

std::vector<PipelineTask> one_f_one_b(int pp, int rank, int m) {
  std::vector<PipelineTask> order;
  const int warmup = std::min(pp - rank - 1, m);
  for (int i = 0; i < warmup; ++i) order.push_back({true, 0, i});
  for (int i = 0; i < m - warmup; ++i) {
    order.push_back({true, 0, warmup + i});
    order.push_back({false, 0, i});
  }
  for (int i = m - warmup; i < m; ++i) order.push_back({false, 0, i});
  return order;
}

std::vector<PipelineTask> interleaved(int pp, int rank, int v, int m) {
  const int total = m * v;
  const int group = pp * v;
  const auto task = [&](int k, bool forward) {
    const int in_group = (k % group) / pp;
    return PipelineTask{forward, forward ? in_group : v - 1 - in_group, (k / group) * pp + k % pp};
  };
  const int warmup = m == pp ? total : std::min(total, 2 * (pp - rank - 1) + (v - 1) * pp);
  std::vector<PipelineTask> order;
  for (int k = 0; k < warmup; ++k) order.push_back(task(k, true));
  for (int i = 0; i < total - warmup; ++i) {
    order.push_back(task(warmup + i, true));
    order.push_back(task(i, false));
  }
  for (int k = total - warmup; k < total; ++k) order.push_back(task(k, false));
  return order;
}

}  // namespace

std::vector<std::vector<PipelineTask>> pipeline_order(workload::PipelineSchedule schedule, int pp, int chunks,
                                                      int micro_batches) {
  CTWIN_ASSERT(pp >= 1 && chunks >= 1 && micro_batches >= 1, "validated split");
  std::vector<std::vector<PipelineTask>> orders;
  for (int r = 0; r < pp; ++r) {
    switch (schedule) {
      case workload::PipelineSchedule::kGpipe: {
        CTWIN_ASSERT(chunks == 1, "GPipe has one chunk per rank");
        std::vector<PipelineTask> order;
        for (int i = 0; i < micro_batches; ++i) order.push_back({true, 0, i});
        for (int i = 0; i < micro_batches; ++i) order.push_back({false, 0, i});
        orders.push_back(std::move(order));
        break;
      }
      case workload::PipelineSchedule::kOneFOneB:
        CTWIN_ASSERT(chunks == 1, "1F1B has one chunk per rank");
        orders.push_back(one_f_one_b(pp, r, micro_batches));
        break;
      case workload::PipelineSchedule::kInterleaved:
        CTWIN_ASSERT(micro_batches % pp == 0, "validate() requires micro-batches divisible by pp");
        orders.push_back(interleaved(pp, r, chunks, micro_batches));
        break;
    }
  }
  return orders;
}

}  // namespace ctwin::replay
