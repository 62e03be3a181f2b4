// The host-cost fit on the H200 kernel profile's host columns (calibration/host_profile.hpp): it
// recovers factors synthetic rows were made with, the constants the training step uses are its
// result, and the held-out rows' error is what the docs report.

#include "ctwin/calibration/host_profile.hpp"

#include <gtest/gtest.h>

#include "ctwin/core/error.hpp"
#include "ctwin/replay/host_timeline.hpp"

namespace ctwin::calibration {
namespace {

const std::string kH200Profile = std::string(CTWIN_SOURCE_DIR) + "/validation/kernels/h200-kernel-profile.json";

TEST(HostProfile, RecoversTheFactorsSyntheticRowsWereMadeWith) {
  KernelProfile p = read_kernel_profile(kH200Profile);
  const double launch_ms = p.launch_host_us * 1e-3;
  for (auto& r : p.routing) {
    r.router_host_ms = launch_ms * kRouterKernels * 2.0;
    r.permute_host_ms = launch_ms * kPermuteKernels * 2.0;
  }
  for (auto& r : p.experts) r.grouped_host_ms = launch_ms * kGroupedBlockKernels * 3.0;
  const HostProfileFit fit = fit_host_profile(p, kH200Profile);
  EXPECT_NEAR(fit.op_factor, 2.0, 1e-9);
  EXPECT_NEAR(fit.grouped_factor, 3.0, 1e-9);
  EXPECT_NEAR(fit.held_out.max_abs, 0, 1e-9);
}

TEST(HostProfile, TheStepsConstantsAreTheH200Fit) {
  const HostProfileFit fit = fit_host_profile(read_kernel_profile(kH200Profile), kH200Profile);
  EXPECT_NEAR(fit.launch_us, 21.0016, 1e-9);
  EXPECT_NEAR(fit.op_factor, replay::kHostOpFactor, 0.005);
  EXPECT_NEAR(fit.grouped_factor, replay::kHostGroupedFactor, 0.005);
  // 4 router + 11 expert rows fitted; 4 permutation + 9 expert rows held out.
  EXPECT_EQ(fit.fit.count, 15u);
  EXPECT_EQ(fit.held_out.count, 13u);
  // What the docs report (docs/moe-kernels.md, "The host"): held out 29.6 % median, 43.9 % max.
  EXPECT_NEAR(fit.held_out.median_abs, 0.296, 0.001);
  EXPECT_NEAR(fit.held_out.max_abs, 0.439, 0.001);
}

TEST(HostProfile, AProfileWithoutALaunchRowIsAnInputError) {
  KernelProfile p = read_kernel_profile(kH200Profile);
  p.launch_host_us = 0;
  EXPECT_THROW((void)fit_host_profile(p, kH200Profile), InputError);
}

}  // namespace
}  // namespace ctwin::calibration
