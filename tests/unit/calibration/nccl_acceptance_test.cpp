// Acceptance figures of the communication twin against measured logs, uncalibrated: NVLS is
// chosen on one NVLS-capable node where NCCL chooses it, and the 8×H100 NVLS all_reduce peak
// is within 10% of the measured one (NVIDIA/nccl-tests issue 290: 473.6 GB/s at 4 GiB).

#include <gtest/gtest.h>

#include <filesystem>

#include "ctwin/calibration/nccl_log.hpp"
#include "bundled_fabric.hpp"
#include "ctwin/collectives/predict.hpp"

namespace ctwin::calibration {
namespace {

using collectives::Algorithm;

fabric::Fabric build(const std::string& topology, int gpus) { return testing::bundled_fabric(topology, gpus); }

collectives::CollectiveRow predict_auto(const fabric::Fabric& built, Bytes size) {
  collectives::CollectiveQuery query;
  query.sizes = {size};
  return collectives::predict_collective(built, query).rows.front();
}

TEST(NcclAcceptance, NvlsPeakOfOneH100NodeIsWithinTenPercentOfMeasured) {
  const auto log = read_nccl_log(std::filesystem::path(CTWIN_SOURCE_DIR) /
                                 "validation/nccl/logs/nccltests-290-h100-1node-allreduce-nvls.log");
  const NcclRow& largest = log.rows.back();
  const auto row = predict_auto(build("dgx-h100-superpod", 8), largest.size);
  EXPECT_EQ(row.algorithm, Algorithm::kNvls);
  EXPECT_NEAR(row.busbw_GBps / largest.out_of_place.busbw_GBps, 1.0, 0.10)
      << "predicted " << row.busbw_GBps << " GB/s, measured " << largest.out_of_place.busbw_GBps;
}

TEST(NcclAcceptance, AutoPicksNvlsForLargeAllReduceOnNvlsNodesAndRingOrTreeWhenSmall) {
  for (const char* topology : {"dgx-h100-superpod", "dgx-b200-superpod"}) {
    const auto built = build(topology, 8);
    EXPECT_EQ(predict_auto(built, Bytes(1 << 30)).algorithm, Algorithm::kNvls) << topology;
    // NCCL charges NVLS 25 us of latency: small messages stay on LL rings or trees.
    EXPECT_NE(predict_auto(built, Bytes(1024)).algorithm, Algorithm::kNvls) << topology;
  }
  EXPECT_NE(predict_auto(build("dgx-a100-superpod", 8), Bytes(1 << 30)).algorithm, Algorithm::kNvls);
}

}  // namespace
}  // namespace ctwin::calibration
