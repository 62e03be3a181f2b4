// `ctwin calibrate --bundle/--merge`, `run/scale/sweep --calibration`, `validate --run` and
// `validate --kernels` through the binary: good input works, bad input is one line and exit 2.

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <string>

#include "cli_runner.hpp"
#include "source_root.hpp"

namespace {

using ctwin::cli_testing::Outcome;
using ctwin::cli_testing::one_line_error;
using ctwin::cli_testing::run_ctwin;
using ctwin::cli_testing::shell_quote;

class CalibrationCli : public ctwin::cli_testing::TempDirTest {
 protected:
  std::string bundle_with_h100_profile() const {
    const std::string bundle = write("bundle.json", "");
    std::filesystem::remove(bundle);
    const Outcome merged =
        run_ctwin("calibrate --bundle " + shell_quote(bundle) + " --merge " + shell_quote(ctwin::kRoot + "/models/gpus/calibrated/h100-sxm.json"));
    EXPECT_EQ(merged.status, 0) << merged.output;
    return bundle;
  }
  static std::string scenario() { return shell_quote(ctwin::kRoot + "/scenarios/default.json"); }
};

TEST_F(CalibrationCli, RunScaleAndSweepApplyTheBundle) {
  const std::string bundle = bundle_with_h100_profile();
  const Outcome plain = run_ctwin("run " + scenario() + " --network analytical --format json");
  const Outcome calibrated = run_ctwin("run " + scenario() + " --network analytical --format json --calibration " + shell_quote(bundle));
  ASSERT_EQ(plain.status, 0) << plain.output;
  ASSERT_EQ(calibrated.status, 0) << calibrated.output;
  const auto a = nlohmann::json::parse(plain.output);
  const auto b = nlohmann::json::parse(calibrated.output);
  EXPECT_FALSE(a.contains("calibration"));
  EXPECT_TRUE(b.contains("calibration"));
  EXPECT_GT(b["step_time_s"].get<double>(), a["step_time_s"].get<double>());
  const Outcome scale = run_ctwin("scale " + scenario() + " --gpus 32,64 --network analytical --format json --calibration " + shell_quote(bundle));
  EXPECT_EQ(scale.status, 0) << scale.output;
  const Outcome sweep = run_ctwin("sweep " + scenario() + " --grid parallel.tp=1,2 --network analytical --format csv --calibration " + shell_quote(bundle));
  EXPECT_EQ(sweep.status, 0) << sweep.output;
}

// The bundled example run on the analytical network: the command's path is the same, and its step
// takes 0.06 s of CPU in Release instead of 1.1 s on flow (about 30 s under ASan), whose replay the
// sanitized half runs through the flow tests and golden.validate-training-flow.
TEST_F(CalibrationCli, ValidateRunAndKernelsPrint) {
  auto example = nlohmann::json::parse(std::ifstream(ctwin::kRoot + "/validation/runs/example-llama3-70b-h100.json"));
  example["scenario"]["network"] = "analytical";
  const Outcome run = run_ctwin("validate --run " + shell_quote(write("run.json", example.dump())) + " --format json");
  ASSERT_EQ(run.status, 0) << run.output;
  const auto v = nlohmann::json::parse(run.output);
  EXPECT_DOUBLE_EQ(v["measured"]["tokens_per_s_per_gpu"].get<double>(), 1602.0);
  EXPECT_TRUE(v["calibrated"].is_null());
  const Outcome kernels = run_ctwin("validate --kernels " + shell_quote(ctwin::kRoot + "/validation/kernels/h200-kernel-profile.json") +
                                    " --gpu " + shell_quote(ctwin::kRoot + "/models/gpus/calibrated/gemm/h200.json") + " --format csv");
  EXPECT_EQ(kernels.status, 0) << kernels.output;
}

TEST_F(CalibrationCli, BadInputIsOneLine) {
  const std::string missing = shell_quote((dir_ / "missing.json").string());
  EXPECT_TRUE(one_line_error(run_ctwin("run " + scenario() + " --calibration " + missing), {"--calibration"}));
  const std::string not_a_bundle = write("scenario-as-bundle.json", R"({"model": "x"})");
  EXPECT_TRUE(one_line_error(run_ctwin("run " + scenario() + " --calibration " + shell_quote(not_a_bundle)),
                             {not_a_bundle, "ctwin_calibration"}));
  // --bundle over a file that is not one is refused before anything is fitted or written.
  EXPECT_TRUE(one_line_error(run_ctwin("calibrate --bundle " + shell_quote(not_a_bundle) + " --merge " +
                                       shell_quote(ctwin::kRoot + "/models/gpus/h100-sxm.json")),
                             {not_a_bundle}));
  EXPECT_TRUE(one_line_error(run_ctwin("calibrate --merge " + shell_quote(ctwin::kRoot + "/models/gpus/h100-sxm.json")), {"--merge"}));
  EXPECT_TRUE(one_line_error(run_ctwin("calibrate --bundle " + missing), {"--bundle"}));
  // A borrowed GEMM table cannot stand alone in a bundle (h200 borrows H100 SXM's).
  EXPECT_TRUE(one_line_error(run_ctwin("calibrate --bundle " + shell_quote((dir_ / "b.json").string()) + " --merge " +
                                       shell_quote(ctwin::kRoot + "/models/gpus/h200.json")),
                             {"gemm_table_from"}));
  EXPECT_TRUE(one_line_error(run_ctwin("validate --run " + missing), {"missing.json"}));
  const std::string two = write("two.json", R"({"scenario": "scenarios/default.json",
      "measured": {"step_time": "1s", "tokens_per_s": 5}})");
  EXPECT_TRUE(one_line_error(run_ctwin("validate --run " + shell_quote(two)), {two, "/measured"}));
  const std::string negative = write("negative.json", R"({"scenario": "scenarios/default.json",
      "measured": {"tokens_per_s_per_gpu": -3}})");
  EXPECT_TRUE(one_line_error(run_ctwin("validate --run " + shell_quote(negative)), {negative, "tokens_per_s_per_gpu"}));
  EXPECT_TRUE(one_line_error(run_ctwin("validate --run " + shell_quote(two) + " --training"), {"--training"}));
  EXPECT_TRUE(one_line_error(run_ctwin("validate --calibration " + missing), {"--calibration"}));
  EXPECT_TRUE(one_line_error(run_ctwin("validate --kernels " + shell_quote(ctwin::kRoot + "/validation/kernels/h200-kernel-profile.json")),
                             {"--gpu"}));
  EXPECT_TRUE(one_line_error(run_ctwin("validate --gpu h200"), {"--gpu"}));
}

}  // namespace
