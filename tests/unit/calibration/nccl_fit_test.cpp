// Calibration from nccl-tests logs. The oracle: logs the twin itself printed with known,
// perturbed parameters. The fit must find those parameters again, predict a held-out log of
// another GPU count as well as the fitted one, and leave what the logs cannot see alone.

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "bundled_fabric.hpp"
#include "ctwin/calibration/nccl_calibration_file.hpp"
#include "ctwin/calibration/nccl_fit.hpp"
#include "ctwin/calibration/nccl_validation.hpp"
#include "ctwin/core/error.hpp"

namespace ctwin::calibration {
namespace {

using collectives::Algorithm;
using collectives::Op;
using collectives::Protocol;

fabric::ClusterSpec h100() {
  return ctwin::testing::load_cluster_with_arch(std::string(CTWIN_SOURCE_DIR) + "/topologies/dgx-h100-superpod.json");
}

// What nccl-tests would print on a cluster whose truth is `truth`: the twin's own prediction.
NcclFitCase synthetic_log(const fabric::ClusterSpec& spec, const NcclCalibration& truth, Op op, int gpus,
                          Algorithm algorithm = Algorithm::kAuto) {
  const fabric::Fabric built(truth.apply(spec), gpus);
  collectives::CollectiveQuery query;
  query.op = op;
  query.algorithm = algorithm;
  query.network = network::ModelKind::kFlow;
  query.tuning = truth.tuning;
  query.sizes = collectives::size_sweep(Bytes(1024), Bytes(1 << 30), 4);
  const auto predicted = collectives::predict_collective(built, query);
  NcclFitCase c;
  c.name = std::string(collectives::name(op)) + " on " + std::to_string(gpus);
  c.op = op;
  c.gpus = gpus;
  c.algorithm = algorithm;
  for (const auto& row : predicted.rows) {
    NcclRow measured;
    measured.size = row.size;
    measured.type = "float";
    measured.out_of_place.time_us = row.time.seconds() * 1e6;
    c.log.rows.push_back(measured);
  }
  c.log.source = c.name;
  return c;
}

TEST(NcclFit, RecoversKnownParametersFromTheTwinsOwnLogs) {
  const auto spec = h100();
  NcclCalibration truth = NcclCalibration::defaults_of(spec);
  truth.nvlink_efficiency = 0.70;          // a slower fabric than NCCL assumes
  truth.tuning.latency_scale = {1.4, 1.0, 1.25};
  const auto fitted_log = synthetic_log(spec, truth, Op::kAllReduce, 8, Algorithm::kRing);
  const auto held_out = synthetic_log(spec, truth, Op::kAllGather, 4);

  const auto report = fit_nccl(spec, {fitted_log}, {held_out}, network::ModelKind::kFlow);
  EXPECT_NEAR(report.calibration.nvlink_efficiency, 0.70, 0.70 * 0.02);
  EXPECT_NEAR(report.calibration.tuning.latency_scale[0], 1.4, 1.4 * 0.05);
  EXPECT_NEAR(report.calibration.tuning.latency_scale[2], 1.25, 1.25 * 0.05);
  EXPECT_GT(report.fit_before.median_abs, 0.1);
  EXPECT_LT(report.fit_after.median_abs, 0.01);
  EXPECT_LT(report.holdout_after.median_abs, 0.02);
  EXPECT_LT(report.holdout_after.median_abs, report.holdout_before.median_abs);
}

TEST(NcclFit, ParametersTheLogsCannotSeeKeepTheirDefaults) {
  const auto spec = h100();
  const NcclCalibration defaults = NcclCalibration::defaults_of(spec);
  NcclCalibration truth = defaults;
  truth.nvlink_efficiency = 0.75;
  // One node: no NIC or switch link carries anything, so neither can be fitted.
  const auto report = fit_nccl(spec, {synthetic_log(spec, truth, Op::kAllReduce, 8, Algorithm::kRing)}, {}, network::ModelKind::kFlow);
  for (const auto& parameter : report.parameters) {
    if (parameter.name == "NIC port efficiency" || parameter.name == "switch link efficiency") {
      EXPECT_FALSE(parameter.identified) << parameter.name;
      EXPECT_DOUBLE_EQ(parameter.fitted, parameter.initial) << parameter.name;
    }
  }
  EXPECT_DOUBLE_EQ(report.calibration.nic_efficiency, defaults.nic_efficiency);
}

TEST(NcclFit, DefaultsFitTheirOwnLogsExactly) {
  const auto spec = h100();
  const NcclCalibration defaults = NcclCalibration::defaults_of(spec);
  const auto report = fit_nccl(spec, {synthetic_log(spec, defaults, Op::kAllReduce, 8)}, {}, network::ModelKind::kFlow);
  EXPECT_LT(report.fit_before.max_abs, 1e-9);
  EXPECT_NEAR(report.calibration.nvlink_efficiency, defaults.nvlink_efficiency, 1e-3);
}

TEST(NcclCalibrationFile, RoundTripsAndRejectsUnknownFields) {
  const auto spec = h100();
  NcclCalibration truth = NcclCalibration::defaults_of(spec);
  truth.nvlink_efficiency = 0.72;
  const auto report = fit_nccl(spec, {synthetic_log(spec, truth, Op::kAllReduce, 8, Algorithm::kRing)}, {}, network::ModelKind::kFlow);
  const auto path = std::filesystem::temp_directory_path() / "ctwin_nccl_calibration_test.json";
  {
    std::ofstream out(path);
    out << nccl_calibration_json(report, "topologies/dgx-h100-superpod.json", {"synthetic"}, {}).dump(2);
  }
  const NcclCalibration read = read_nccl_calibration(path);
  EXPECT_DOUBLE_EQ(read.nvlink_efficiency, report.calibration.nvlink_efficiency);
  EXPECT_DOUBLE_EQ(read.tuning.latency_scale[2], report.calibration.tuning.latency_scale[2]);
  EXPECT_DOUBLE_EQ(read.tuning.nvls_scale, report.calibration.tuning.nvls_scale);

  auto document = nccl_calibration_json(report, "x", {}, {});
  document["link_efficiency"]["nvlnk"] = 0.5;
  {
    std::ofstream out(path);
    out << document.dump();
  }
  try {
    (void)read_nccl_calibration(path);
    FAIL() << "a misspelt field must be rejected";
  } catch (const InputError& error) {
    EXPECT_EQ(error.pointer(), "/link_efficiency/nvlnk");
  }
  std::filesystem::remove(path);
}

// The measured logs. A two-node H100 all_reduce sweep (one log of its cluster) is fitted on
// every other size and judged on the sizes in between, which must come out no worse than with
// the defaults; an 8-GPU sweep fitted on itself must come out better.
TEST(NcclValidation, CalibrationOnMeasuredLogsBeatsTheDefaults) {
  const std::filesystem::path folder = std::filesystem::path(CTWIN_SOURCE_DIR) / "validation/nccl";
  const auto manifest = read_nccl_setups(folder / "setups.json");
  const auto find = [&](const std::string& id) {
    for (const auto& setup : manifest) {
      if (setup.id == id) return &setup;
    }
    ADD_FAILURE() << id << " not in the manifest";
    return &manifest.front();
  };
  ValidationOptions options;
  options.calibrate = true;
  options.load_topology = [](const std::string& path) { return ctwin::testing::load_cluster_with_arch(std::filesystem::path(CTWIN_SOURCE_DIR) / path); };
  const auto results = validate_setups(manifest, {find("nccltests-309-xe9680-2node-allreduce")}, options);
  ASSERT_EQ(results.size(), 1U);
  const auto& result = results.front();
  ASSERT_TRUE(result.skipped.empty());
  ASSERT_TRUE(result.calibrated.has_value());
  std::vector<double> before;  // the defaults on the same held-out (odd) rows
  std::vector<double> after;
  for (std::size_t i = 1; i < result.uncalibrated.rows.size(); i += 2) before.push_back(result.uncalibrated.rows[i].error);
  for (const auto& row : result.calibrated->rows) after.push_back(row.error);
  ASSERT_EQ(before.size(), after.size());
  // Since trees pay their depth once (plan_timing.hpp), the defaults on these held-out rows are
  // at 7.9 % and the fit on the other rows at 8.0 % (4.9 % -> 3.7 % at >= 1 MiB): a tie, so the
  // check is that calibrating does not make them worse.
  EXPECT_LT(error_stats(after).median_abs, error_stats(before).median_abs + 0.005);
  EXPECT_LT(error_stats(after).median_abs, 0.15);

  const NcclSetup& eight = *find("aic-h100_sxm-all_reduce-half-8gpu");
  NcclFitCase fitted;
  fitted.name = eight.id;
  fitted.log = read_nccl_log(eight.log, eight.op);
  fitted.op = eight.op;
  fitted.gpus = eight.ranks;
  const auto spec = h100();
  const auto report = fit_nccl(spec, {fitted}, {}, network::ModelKind::kFlow);
  EXPECT_LT(report.fit_after.median_abs, report.fit_before.median_abs);
}

}  // namespace
}  // namespace ctwin::calibration
