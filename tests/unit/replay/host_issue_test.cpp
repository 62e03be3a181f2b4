// The GPU's wait for the host after a sync against closed forms (replay/host_issue.hpp).

#include <gtest/gtest.h>

#include "ctwin/replay/host_issue.hpp"
#include "test_scenario.hpp"

namespace ctwin::replay {
namespace {

TEST(HostIssue, KernelsLongerThanALaunchExposeOneLaunch) {
  const std::vector<IssuedKernel> kernels{{us(50)}, {us(30)}, {us(100)}};
  EXPECT_NEAR(exposed_after_sync(kernels, us(10)).seconds(), 10e-6, 1e-12);
}

TEST(HostIssue, ShortKernelsExposeTheirShortfall) {
  // n kernels of d < L: the GPU ends at n·L + d, busy n·d, so it waits n·(L − d) + d.
  const std::vector<IssuedKernel> kernels(5, IssuedKernel{us(4)});
  EXPECT_NEAR(exposed_after_sync(kernels, us(10)).seconds(), (5 * (10 - 4) + 4) * 1e-6, 1e-12);
}

TEST(HostIssue, NoLaunchCostExposesNothing) {
  const std::vector<IssuedKernel> kernels{{us(1)}, {us(0)}, {us(7)}};
  EXPECT_EQ(exposed_after_sync(kernels, SimTime()), SimTime());
  EXPECT_EQ(exposed_after_sync({}, us(10)), SimTime());
}

TEST(HostIssue, ALoopOfLaunchesIsIssuedOneByOne) {
  // One kernel of 16 launches sharing 64 us (4 us each) behaves as 16 kernels of 4 us.
  const std::vector<IssuedKernel> loop{{us(64), 16}};
  const std::vector<IssuedKernel> separate(16, IssuedKernel{us(4)});
  EXPECT_EQ(exposed_after_sync(loop, us(10)), exposed_after_sync(separate, us(10)));
  // A long kernel afterwards hides nothing already lost.
  std::vector<IssuedKernel> then_long = separate;
  then_long.push_back({us(1000)});
  EXPECT_NEAR(exposed_after_sync(then_long, us(10)).seconds(), exposed_after_sync(separate, us(10)).seconds() + 6e-6,
              1e-12);
}

}  // namespace
}  // namespace ctwin::replay
