// The host as a serial issuer (replay/host_timeline.hpp) against closed forms: a GPU-bound stretch
// exposes only its first issue, N tiny kernels take N host costs, conservation of host and GPU
// time, a sync makes the host wait, CUDA graphs leave one launch, and a pass's GPU-bound ops are
// left untouched.

#include "ctwin/replay/host_timeline.hpp"
#include "test_scenario.hpp"

#include <gtest/gtest.h>

namespace ctwin::replay {
namespace {

Scenario host_scenario(double launch_us, bool graphs = false) {
  Scenario s;
  s.gpu.host_launch = us(launch_us);
  s.cuda_graphs = graphs;
  return s;
}

OpNode kernel(double gpu_us, int launches = 1) {
  OpNode op{"k", Stream::kCompute, us(gpu_us)};
  op.launches = launches;
  return op;
}

TEST(HostTimeline, GpuBoundStretchExposesOnlyItsFirstIssue) {
  const std::vector<HostKernel> k{{us(1000), us(10)}, {us(800), us(10)}, {us(900), us(10)}};
  const HostTimeline t = issue_timeline(k);
  EXPECT_NEAR(t.exposed().seconds(), 10e-6, 1e-12);
  EXPECT_NEAR(t.end.seconds(), (10 + 2700) * 1e-6, 1e-12);
}

TEST(HostTimeline, TinyKernelsTakeTheHostsTime) {
  // N kernels of d < c: the GPU ends at N·c + d; it waited N·c + d − N·d.
  const int n = 7;
  const std::vector<HostKernel> k(n, HostKernel{us(3), us(20)});
  const HostTimeline t = issue_timeline(k);
  EXPECT_NEAR(t.end.seconds(), (n * 20 + 3) * 1e-6, 1e-12);
  EXPECT_NEAR(t.exposed().seconds(), (n * 20 + 3 - n * 3) * 1e-6, 1e-12);
}

TEST(HostTimeline, ConservesHostAndGpuTime) {
  const std::vector<HostKernel> k{{us(5), us(30), 3}, {us(400), us(12)}, {us(0), us(25)}, {us(2), us(9), 2}};
  const HostTimeline t = issue_timeline(k);
  EXPECT_NEAR(t.host_busy.seconds(), (30 + 12 + 25 + 9) * 1e-6, 1e-12);
  EXPECT_NEAR(t.gpu_busy.seconds(), (5 + 400 + 0 + 2) * 1e-6, 1e-12);
  EXPECT_NEAR(t.end.seconds(), t.gpu_busy.seconds() + t.exposed().seconds(), 1e-12);
  ASSERT_EQ(t.gpu_idle.size(), k.size());
}

TEST(HostTimeline, ASyncMakesTheHostWaitForTheGpu) {
  // The host issues a 1 ms kernel, then must see its result: what follows starts after it, and
  // the GPU waits for the host's issue of each following kernel.
  std::vector<HostKernel> k{{us(1000), us(10)}, {us(0), us(15), 1, true}, {us(50), us(10)}};
  const HostTimeline t = issue_timeline(k);
  EXPECT_NEAR(t.end.seconds(), (10 + 1000 + 15 + 10 + 50) * 1e-6, 1e-12);
  EXPECT_NEAR(t.exposed().seconds(), (10 + 15 + 10) * 1e-6, 1e-12);
}

TEST(HostTimeline, HostCostIsTheFactorPlusOneLaunchPerFurtherLaunch) {
  const Scenario s = host_scenario(10);
  EXPECT_NEAR(host_cost(kernel(5), s).seconds(), 10e-6 * kHostOpFactor, 1e-15);
  OpNode grouped = kernel(5, 16);
  grouped.grouped = true;
  EXPECT_NEAR(host_cost(grouped, s).seconds(), 10e-6 * (kHostGroupedFactor + 15), 1e-15);
}

TEST(HostTimeline, GpuBoundPassIsUnchanged) {
  const Scenario s = host_scenario(10);
  std::vector<OpNode> ops{kernel(2000), kernel(1500, 16), kernel(900)};
  const std::vector<OpNode> before = ops;
  apply_host_issue(ops, s);
  ASSERT_EQ(ops.size(), before.size());
  for (std::size_t i = 0; i < ops.size(); ++i) EXPECT_EQ(ops[i].duration, before[i].duration);
}

TEST(HostTimeline, PassOfTinyKernelsWaitsForTheHost) {
  const Scenario s = host_scenario(10);
  const int n = 50;
  std::vector<OpNode> ops(n, kernel(1));
  apply_host_issue(ops, s);
  ASSERT_EQ(ops.size(), static_cast<std::size_t>(n + 1));
  EXPECT_TRUE(ops.back().host);
  const double host = n * 10e-6 * kHostOpFactor;
  EXPECT_NEAR(ops.back().duration.seconds(), host - n * 1e-6, 1e-12);
  // The pass then takes the host's time: GPU work plus its wait.
  SimTime total;
  for (const auto& op : ops) total += op.duration;
  EXPECT_NEAR(total.seconds(), host, 1e-12);
}

TEST(HostTimeline, CudaGraphsLeaveOneLaunch) {
  // 50 kernels of 1 us: eager, the host's 50 ops are exposed; graphed, one 10 us launch is hidden
  // behind 50 us of GPU work.
  std::vector<OpNode> eager(50, kernel(1));
  apply_host_issue(eager, host_scenario(10));
  ASSERT_EQ(eager.size(), 51u);
  std::vector<OpNode> graphed(50, kernel(1));
  apply_host_issue(graphed, host_scenario(10, true));
  EXPECT_EQ(graphed.size(), 50u);
  std::vector<OpNode> one{kernel(1)};
  apply_host_issue(one, host_scenario(10, true));
  ASSERT_EQ(one.size(), 2u);
  EXPECT_NEAR(one.back().duration.seconds(), 9e-6, 1e-12);
}

TEST(HostTimeline, SyncOpTakesTheExposureOfTheStretchAfterIt) {
  const Scenario s = host_scenario(10);
  OpNode sync{"moe_dispatch_sync", Stream::kCompute, SimTime()};
  sync.host = true;
  sync.launches = 0;
  std::vector<OpNode> ops{kernel(5000), sync, kernel(1, 8), kernel(3000)};
  apply_host_issue(ops, s);
  ASSERT_EQ(ops.size(), 4u);
  // Aligned after the sync: the sync's own op, then 8 launches of the grouped kernel (GPU 1/8 us
  // each, shorter than their issue), then the long kernel's issue.
  const double op = 10e-6 * kHostOpFactor;
  std::vector<HostKernel> by_hand{{SimTime(), SimTime::from_seconds(op)},
                                  {us(1), SimTime::from_seconds(op + 7 * 10e-6), 8},
                                  {us(3000), SimTime::from_seconds(op)}};
  EXPECT_EQ(ops[1].duration, issue_timeline(by_hand).exposed());
  EXPECT_GT(ops[1].duration.seconds(), op + 7 * 10e-6);
}

}  // namespace
}  // namespace ctwin::replay
