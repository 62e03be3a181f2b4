// The calibration bundle (calibration/calibration_bundle.hpp) and its application to training
// steps (api::with_calibration, api::Scenario::resolve).

#include "ctwin/calibration/calibration_bundle.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "ctwin/api/evaluate.hpp"
#include "ctwin/api/report_json.hpp"
#include "ctwin/validation/run_validation.hpp"
#include "ctwin/api/scenario.hpp"
#include "ctwin/calibration/calibrated_profile.hpp"
#include "ctwin/calibration/nccl_calibration_file.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/core/json_reader.hpp"
#include "ctwin/replay/training_step.hpp"
#include "source_root.hpp"

namespace ctwin::api {
namespace {

namespace fs = std::filesystem;

fs::path scratch(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / "ctwin-calibration-bundle-test";
  fs::create_directories(dir);
  return dir / name;
}

// An nccl calibration document with every link at `factor` times its default efficiency and the
// default protocol costs, as `ctwin calibrate --nccl` would write it.
nlohmann::json scaled_links(const fabric::ClusterSpec& spec, double factor) {
  calibration::NcclFitReport report;
  report.calibration = calibration::NcclCalibration::defaults_of(spec);
  auto& c = report.calibration;
  c.nvlink_efficiency *= factor;
  c.pcie_efficiency *= factor;
  c.nic_efficiency *= factor;
  c.switch_link_efficiency *= factor;
  return calibration::nccl_calibration_json(report, "topologies/dgx-h100-superpod.json", {}, {});
}

fs::path write(const std::string& name, const nlohmann::json& document) {
  const fs::path path = scratch(name);
  calibration::write_profile(document, path);
  return path;
}

// The default scenario with the DP gradient reduction and parameter gather exposed (not
// overlapped), each collective alone on its links, so the DP time in the breakdown is theirs.
Scenario exposed_dp_analytical() {
  return Scenario::load(kRoot + "/scenarios/default.json")
      .with("overlap.dp_grad_reduce", false)
      .with("overlap.dp_param_gather", false)
      .with("network", "analytical");
}

TEST(CalibrationBundle, HalfTheBandwidthDoublesTheExposedDpCommunication) {
  const Scenario base = exposed_dp_analytical();
  const replay::Scenario resolved = base.resolve();
  const fs::path half = write("half.json", scaled_links(resolved.cluster, 0.5));
  EvalContext context;
  const StepResult plain = evaluate(base, context);
  const StepResult slow = evaluate(with_calibration(base, half.string()), context);
  const double before = plain.step.report.breakdown.exposed_comm_s.dp;
  const double after = slow.step.report.breakdown.exposed_comm_s.dp;
  ASSERT_GT(before, 0.02 * plain.step.report.step_time_s) << "the case must expose its DP communication";
  // Bandwidth terms double, latency terms stay: just under 2.
  EXPECT_GT(after / before, 1.9);
  EXPECT_LE(after / before, 2.0 + 1e-9);
  // Compute is untouched by a cluster calibration.
  EXPECT_NEAR(slow.step.report.breakdown.compute_s, plain.step.report.breakdown.compute_s, 1e-12);
  EXPECT_TRUE(slow.scenario.calibrated);
  EXPECT_EQ(fs::path(slow.scenario.calibration), fs::absolute(half).lexically_normal());
}

TEST(CalibrationBundle, TheDefaultsAsACalibrationChangeNothing) {
  const Scenario base = Scenario::load(kRoot + "/scenarios/default.json");
  const fs::path same = write("same.json", scaled_links(base.resolve().cluster, 1.0));
  EvalContext context;
  const StepResult plain = evaluate(base, context);
  const StepResult calibrated = evaluate(with_calibration(base, same.string()), context);
  EXPECT_EQ(plain.step.report.step_time_s, calibrated.step.report.step_time_s);
  EXPECT_EQ(plain.step.report.breakdown.exposed_comm_s.total(), calibrated.step.report.breakdown.exposed_comm_s.total());
  // Another cache entry, not the uncalibrated one reused.
  EXPECT_NE(plain.scenario.cluster_key, calibrated.scenario.cluster_key);
}

TEST(CalibrationBundle, TheScenarioFieldAndTheFlagAreTheSame) {
  const Scenario base = exposed_dp_analytical();
  const fs::path half = write("half-field.json", scaled_links(base.resolve().cluster, 0.5));
  EvalContext context;
  const StepResult by_flag = evaluate(with_calibration(base, half.string()), context);
  const StepResult by_field = evaluate(base.with("calibration", half.string()), context);
  EXPECT_EQ(step_report_json(by_flag.scenario, by_flag.step.report).dump(),
            step_report_json(by_field.scenario, by_field.step.report).dump());
}

TEST(CalibrationBundle, MergesGpuAndClusterPartsAndReadsThemBack) {
  const Scenario base = Scenario::load(kRoot + "/scenarios/default.json");
  const fs::path bundle = scratch("merged.json");
  fs::remove(bundle);
  const nlohmann::json nccl = scaled_links(base.resolve().cluster, 0.5);
  calibration::merge_into_bundle_file(bundle, calibration::BundleSection::kNccl, nccl, "nccl.json");
  nlohmann::json profile = load_json_file(kRoot + "/models/gpus/h100-sxm.json");
  profile["training_time_scale"] = 1.5;
  profile["sources"]["training_time_scale"] = "this test: a known scale to find again";
  calibration::merge_into_bundle_file(bundle, calibration::BundleSection::kGpu, profile, "h100.json");
  // Merging the cluster part again replaces it and keeps the GPU part.
  calibration::merge_into_bundle_file(bundle, calibration::BundleSection::kNccl, nccl, "nccl.json");
  const calibration::CalibrationBundle read = calibration::read_calibration_bundle(bundle);
  ASSERT_TRUE(read.gpu.has_value());
  ASSERT_TRUE(read.nccl.has_value());
  EXPECT_DOUBLE_EQ(read.gpu->training_time_scale, 1.5);
  EXPECT_DOUBLE_EQ(read.nccl->nic_efficiency, 0.5 * calibration::NcclCalibration::defaults_of(base.resolve().cluster).nic_efficiency);

  // The GPU part slows every kernel by its training_time_scale: compute grows by about 1.5.
  EvalContext context;
  const StepResult plain = evaluate(base, context);
  const StepResult calibrated = evaluate(with_calibration(base, bundle.string()), context);
  EXPECT_NEAR(calibrated.step.report.breakdown.compute_s / plain.step.report.breakdown.compute_s, 1.5, 0.02);
  EXPECT_GT(calibrated.step.report.step_time_s, plain.step.report.step_time_s);
}

TEST(CalibrationBundle, ALoneNcclFileIsABundleWithOnlyTheClusterPart) {
  const Scenario base = Scenario::load(kRoot + "/scenarios/default.json");
  const fs::path lone = write("lone.json", scaled_links(base.resolve().cluster, 0.8));
  const calibration::CalibrationBundle read = calibration::read_calibration_bundle(lone);
  EXPECT_FALSE(read.gpu.has_value());
  ASSERT_TRUE(read.nccl.has_value());
  // Merging a GPU part into it nests the cluster fit under "nccl".
  const nlohmann::json merged = calibration::merge_into_bundle(
      load_json_file(lone), calibration::BundleSection::kGpu, load_json_file(kRoot + "/models/gpus/h100-sxm.json"), "h100");
  EXPECT_EQ(merged["ctwin_calibration"], "bundle");
  EXPECT_EQ(merged["nccl"]["ctwin_calibration"], "nccl");
  EXPECT_EQ(merged["gpu"]["name"], "NVIDIA H100 SXM5 80GB");
}

TEST(CalibrationBundle, BadInputIsAnInputErrorNamingTheFileAndField) {
  const Scenario base = Scenario::load(kRoot + "/scenarios/default.json");
  // A GPU part for another GPU than the scenario's.
  const nlohmann::json other = calibration::merge_into_bundle(
      nullptr, calibration::BundleSection::kGpu, load_json_file(kRoot + "/models/gpus/b200.json"), "b200");
  const fs::path wrong_gpu = write("wrong-gpu.json", other);
  try {
    (void)with_calibration(base, wrong_gpu.string()).resolve();
    FAIL() << "a B200 profile cannot calibrate an H100 scenario";
  } catch (const InputError& e) {
    EXPECT_EQ(e.source(), fs::absolute(wrong_gpu).lexically_normal().string());
    EXPECT_NE(std::string(e.what()).find("/gpu/name"), std::string::npos) << e.what();
  }
  // No such file.
  EXPECT_THROW((void)with_calibration(base, scratch("missing.json").string()), InputError);
  // An empty bundle, an unknown section, an efficiency out of range.
  const fs::path empty = write("empty.json", {{"ctwin_calibration", "bundle"}});
  EXPECT_THROW((void)with_calibration(base, empty.string()).resolve(), InputError);
  const fs::path unknown = write("unknown.json", {{"ctwin_calibration", "bundle"}, {"gpus", 1}});
  EXPECT_THROW((void)with_calibration(base, unknown.string()).resolve(), InputError);
  nlohmann::json absurd = scaled_links(base.resolve().cluster, 1.0);
  absurd["link_efficiency"]["nic"] = 3;
  try {
    (void)calibration::merge_into_bundle(nullptr, calibration::BundleSection::kNccl, absurd, "fit.json");
    FAIL() << "an efficiency of 3 is refused before it is written";
  } catch (const InputError& e) {
    EXPECT_EQ(e.source(), "fit.json");
  }
  // A profile that borrows its GEMM table cannot stand alone in a bundle.
  nlohmann::json borrowing = load_json_file(kRoot + "/models/gpus/h100-sxm.json");
  borrowing["gemm_table_from"] = "h100-sxm";
  EXPECT_THROW((void)calibration::merge_into_bundle(nullptr, calibration::BundleSection::kGpu, borrowing, "p.json"),
               InputError);
  // The field must be a path.
  EXPECT_THROW((void)base.with("calibration", 3).resolve(), InputError);
}

TEST(CalibrationBundle, AStepThatDoesNotApplyItsCalibrationRefusesIt) {
  const fs::path half = write("half-replay.json", scaled_links(exposed_dp_analytical().resolve().cluster, 0.5));
  const replay::Scenario unapplied = replay::load_scenario(kRoot + "/scenarios/default.json", kRoot,
                                                           {"calibration=" + half.string()});
  EXPECT_FALSE(unapplied.calibrated);
  EXPECT_THROW((void)replay::simulate_step(unapplied), InputError);
}

TEST(RunValidation, AMeasurementMadeFromThePredictionHasNoError) {
  const Scenario base = exposed_dp_analytical();
  EvalContext context;
  const StepResult plain = evaluate(base, context);
  const fs::path half = write("half-run.json", scaled_links(plain.scenario.cluster, 0.5));
  const StepResult slow = evaluate(with_calibration(base, half.string()), context);
  // Measured = what the half-bandwidth calibration predicts, in tokens/s per GPU.
  const double measured = slow.step.report.tokens_per_s / static_cast<double>(slow.scenario.gpus);
  nlohmann::json run{{"scenario", kRoot + "/scenarios/default.json"},
                     {"set", {"overlap.dp_grad_reduce=false", "overlap.dp_param_gather=false", "network=analytical"}},
                     {"measured", {{"tokens_per_s_per_gpu", measured}}},
                     {"calibration", half.string()}};
  const fs::path file = write("run.json", run);
  const RunValidation v = validate_run(file.string(), "", context);
  ASSERT_TRUE(v.calibrated.has_value());
  EXPECT_NEAR(v.calibrated->error, 0, 1e-9);
  EXPECT_NEAR(v.uncalibrated.error, plain.step.report.step_time_s > 0
                                        ? slow.step.report.step_time_s / plain.step.report.step_time_s - 1
                                        : 0,
              1e-9);
  EXPECT_GT(v.uncalibrated.error, 0.01);
  // The same measurement as a step time.
  run["measured"] = {{"step_time", std::to_string(slow.step.report.step_time_s) + "s"}};
  const RunValidation by_time = validate_run(write("run-time.json", run).string(), "", context);
  EXPECT_NEAR(by_time.calibrated->error, 0, 1e-5);
  // Two measurements, or none, are refused.
  run["measured"] = {{"step_time", "1s"}, {"tokens_per_s", 5}};
  EXPECT_THROW((void)validate_run(write("run-two.json", run).string(), "", context), InputError);
  run["measured"] = nlohmann::json::object();
  EXPECT_THROW((void)validate_run(write("run-none.json", run).string(), "", context), InputError);
  // Issue 36: a step of 1e-9 s printed 1.6e13 tokens/s per GPU. Faster than the GPUs' peak
  // (an MFU above 100 %) is refused, naming the field.
  for (const nlohmann::json& measured : {nlohmann::json{{"step_time", "1ns"}},
                                          nlohmann::json{{"tokens_per_s_per_gpu", measured * 100}}}) {
    run["measured"] = measured;
    try {
      (void)validate_run(write("run-fast.json", run).string(), "", context);
      ADD_FAILURE() << measured.dump() << " was compared";
    } catch (const InputError& e) {
      EXPECT_EQ(e.pointer(), "/measured/" + measured.begin().key());
      EXPECT_NE(std::string(e.what()).find("faster than the GPUs can run the model"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace ctwin::api
