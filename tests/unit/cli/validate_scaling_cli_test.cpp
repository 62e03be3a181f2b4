// `ctwin validate --scaling` from the outside: finite numbers, the trend line, the same bytes
// twice, and one-line errors for a bad cases file or flags of the other modes.

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <string>

#include "cli_runner.hpp"

namespace {

using ctwin::cli_testing::one_line_error;
using ctwin::cli_testing::run_ctwin;
using ctwin::cli_testing::shell_quote;

const std::string kStudies = std::string(CTWIN_SOURCE_DIR) + "/validation/training/scaling.json";

class ValidateScalingCli : public ctwin::cli_testing::TempDirTest {
 protected:
  // The bundled study cut to its two measured sizes: the same code for each size at less than
  // half the cost (0.48 s of CPU in Release against 1.08 s; ASan multiplies it about 11 times). The whole
  // study's table is JsonHasEverySize...'s, in the Release half.
  std::string measured_sizes_only() const {
    auto doc = nlohmann::json::parse(std::ifstream(kStudies));
    for (auto& study : doc["studies"]) {
      study["gpus"] = nlohmann::json::array();
      for (const auto& point : study["measured"]) study["gpus"].push_back(point["gpus"]);
    }
    return write("scaling.json", doc.dump());
  }
};

TEST_F(ValidateScalingCli, JsonHasEverySizeWithFiniteNumbersAndTheSameBytesTwice) {
  const auto first = run_ctwin("validate --scaling --network analytical --format json");
  ASSERT_EQ(first.status, 0) << first.output;
  const auto out = nlohmann::json::parse(first.output);
  ASSERT_EQ(out.at("studies").size(), 1U);
  const auto& study = out.at("studies").at(0);
  EXPECT_EQ(study.at("points").size(), 8U);
  for (const auto& point : study.at("points")) {
    ASSERT_FALSE(point.contains("invalid")) << point;
    const double mfu = point.at("mfu").get<double>();
    EXPECT_TRUE(std::isfinite(mfu) && mfu > 0 && mfu < 1) << point;
  }
  ASSERT_EQ(study.at("measured").size(), 2U);
  const double ratio = study.at("predicted_ratio").get<double>();
  EXPECT_DOUBLE_EQ(ratio, study.at("measured").at(1).at("predicted_mfu").get<double>() /
                              study.at("measured").at(0).at("predicted_mfu").get<double>());
  EXPECT_EQ(study.at("trend_reproduced").get<bool>(), ratio >= study.at("measured_ratio_low").get<double>() &&
                                                          ratio <= study.at("measured_ratio_high").get<double>());
  EXPECT_EQ(first.output, run_ctwin("validate --scaling --network analytical --format json").output);
}

TEST_F(ValidateScalingCli, TableSaysWhetherTheTrendIsReproduced) {
  const auto outcome = run_ctwin("validate --scaling --network analytical --cases " + shell_quote(measured_sizes_only()));
  ASSERT_EQ(outcome.status, 0) << outcome.output;
  for (const char* text : {"megatron-core-h100-strong-177B", "MFU(4608) / MFU(96): measured 0.894", "trend "}) {
    EXPECT_NE(outcome.output.find(text), std::string::npos) << text << " missing from:\n" << outcome.output;
  }
}

TEST_F(ValidateScalingCli, BadCasesFileAndOtherModesFlagsAreOneLineAndExitTwo) {
  std::ifstream in(kStudies);
  auto doc = nlohmann::json::parse(in);
  doc["studies"][0]["measured"][0]["gpus"] = 100;
  const std::string bad = write("scaling.json", doc.dump());
  EXPECT_TRUE(one_line_error(run_ctwin("validate --scaling --cases " + shell_quote(bad)), {"scaling.json", "/studies/0"}));
  EXPECT_TRUE(one_line_error(run_ctwin("validate --scaling --cases /nonexistent/scaling.json"), {"scaling.json"}));
  EXPECT_TRUE(one_line_error(run_ctwin("validate --scaling --calibrated"), {"--calibrated"}));
  EXPECT_TRUE(one_line_error(run_ctwin("validate --scaling --training"), {"--scaling"}));
  EXPECT_TRUE(one_line_error(run_ctwin("validate --scaling --only x"), {"--only"}));
  EXPECT_TRUE(one_line_error(run_ctwin("validate --scaling --network ns3"), {"--network"}));
  EXPECT_TRUE(one_line_error(run_ctwin("validate --training --set gpu=h100-sxm"), {"--set", "--scaling"}));
  EXPECT_TRUE(one_line_error(run_ctwin("validate --scaling --set no.such.key=1"), {"gpt3-177b-h100-strong.json", "/no"}));
}

// --set reaches every size's scenario: a GPU whose training kernels run 1.5x slower lowers every
// MFU, by less than 1.5x, since communication and bubbles do not stretch.
TEST_F(ValidateScalingCli, SetOverridesTheStudysScenario) {
  auto profile = nlohmann::json::parse(std::ifstream(std::string(CTWIN_SOURCE_DIR) + "/models/gpus/h100-sxm.json"));
  profile["training_time_scale"] = 1.5;
  profile["sources"]["training_time_scale"] = "a test";
  const std::string slow = write("slow-h100.json", profile.dump());
  const std::string cases = " --cases " + shell_quote(measured_sizes_only());
  const auto plain = nlohmann::json::parse(run_ctwin("validate --scaling --network analytical --format json" + cases).output);
  const auto outcome = run_ctwin("validate --scaling --network analytical --format json" + cases + " --set gpu=" + shell_quote(slow));
  ASSERT_EQ(outcome.status, 0) << outcome.output;
  const auto scaled = nlohmann::json::parse(outcome.output);
  const auto& before = plain.at("studies").at(0).at("points");
  const auto& after = scaled.at("studies").at(0).at("points");
  ASSERT_EQ(before.size(), 2U);
  ASSERT_EQ(before.size(), after.size());
  for (std::size_t i = 0; i < before.size(); ++i) {
    const double ratio = before[i].at("mfu").get<double>() / after[i].at("mfu").get<double>();
    EXPECT_GT(ratio, 1.3) << i;
    EXPECT_LT(ratio, 1.5 + 1e-9) << i;
  }
}

}  // namespace
