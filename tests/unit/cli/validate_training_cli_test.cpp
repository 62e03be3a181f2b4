// `ctwin validate --training` from the outside: it runs every case, prints finite numbers, the
// same bytes twice, and refuses a bad cases file with one line and exit status 2.

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "cli_runner.hpp"

namespace {

using ctwin::cli_testing::one_line_error;
using ctwin::cli_testing::run_ctwin;
using ctwin::cli_testing::shell_quote;

const std::string kCases = std::string(CTWIN_SOURCE_DIR) + "/validation/training/cases.json";

class ValidateTrainingCli : public ctwin::cli_testing::TempDirTest {};

// Every case on the analytical network (seconds); the flow network's shared-fabric replay of all
// cases takes minutes, so it runs here on one MoE case, and RunCli checks its determinism.
TEST_F(ValidateTrainingCli, RunsEveryCaseWithFiniteNumbersAndTheSameBytesTwice) {
  const auto first = run_ctwin("validate --training --network analytical --format json");
  ASSERT_EQ(first.status, 0) << first.output;
  const auto out = nlohmann::json::parse(first.output);
  std::ifstream in(kCases);
  const auto cases = nlohmann::json::parse(in);
  ASSERT_EQ(out.at("cases").size(), cases.at("cases").size());
  EXPECT_EQ(out.at("not_expressible").size(), cases.at("not_expressible").size());
  for (const auto& row : out.at("cases")) {
    for (const char* key : {"measured", "predicted", "step_time_s", "hardware_tflops_per_gpu"}) {
      const double v = row.at(key).get<double>();
      EXPECT_TRUE(std::isfinite(v) && v > 0) << row.at("id") << " " << key << " = " << v;
    }
    EXPECT_TRUE(std::isfinite(row.at("error").get<double>())) << row.at("id");
  }
  EXPECT_EQ(out.at("summary").at("count"), cases.at("cases").size());
  const auto second = run_ctwin("validate --training --network analytical --format json");
  EXPECT_EQ(first.output, second.output);
}

TEST_F(ValidateTrainingCli, MoeCaseOnTheSharedFabricHasFiniteNumbers) {
  const auto outcome = run_ctwin("validate --training --only qwen330ba3b-dgx-b200 --format json");
  ASSERT_EQ(outcome.status, 0) << outcome.output;
  const auto out = nlohmann::json::parse(outcome.output);
  ASSERT_EQ(out.at("cases").size(), 1u);
  for (const char* key : {"measured", "predicted", "step_time_s"}) {
    const double v = out.at("cases").at(0).at(key).get<double>();
    EXPECT_TRUE(std::isfinite(v) && v > 0) << key << " = " << v;
  }
}

TEST_F(ValidateTrainingCli, TableHasTheSummaryAndTheNotExpressibleRuns) {
  const auto outcome = run_ctwin("validate --training --only sc21-table1-1.7B --network analytical");
  ASSERT_EQ(outcome.status, 0) << outcome.output;
  for (const char* text : {"megatron-sc21-table1-1.7B", "# by group", "# not expressible", "opt-175b-992gpu"}) {
    EXPECT_NE(outcome.output.find(text), std::string::npos) << text << " missing from:\n" << outcome.output;
  }
}

TEST_F(ValidateTrainingCli, BadCasesFileIsOneLineAndExitTwo) {
  std::ifstream in(kCases);
  auto doc = nlohmann::json::parse(in);
  doc["cases"][0]["scenario"]["parallel"]["tp"] = 5;
  const std::string bad = write("cases.json", doc.dump());
  EXPECT_TRUE(one_line_error(run_ctwin("validate --training --cases " + shell_quote(bad)), {"cases.json", "/cases/0"}));
  EXPECT_TRUE(one_line_error(run_ctwin("validate --training --cases " + shell_quote(write("broken.json", "{"))),
                             {"broken.json"}));
  EXPECT_TRUE(one_line_error(run_ctwin("validate --training --cases /nonexistent/cases.json"), {"cases.json"}));
}

TEST_F(ValidateTrainingCli, NcclOnlyFlagsAndCasesWithoutTrainingAreRefused) {
  EXPECT_TRUE(one_line_error(run_ctwin("validate --training --rows"), {"--rows"}));
  EXPECT_TRUE(one_line_error(run_ctwin("validate --scaling --calibrated"), {"--calibrated"}));
  EXPECT_TRUE(one_line_error(run_ctwin("validate --training --calibrated --profiles ."), {"--profiles"}));
  EXPECT_TRUE(one_line_error(run_ctwin("validate --cases " + shell_quote(kCases)), {"--cases"}));
  EXPECT_TRUE(one_line_error(run_ctwin("validate --training --only no-such-case"), {"--only"}));
  EXPECT_TRUE(one_line_error(run_ctwin("validate --jobs 2"), {"--jobs", "--training"}));
  EXPECT_TRUE(one_line_error(run_ctwin("validate --scaling --jobs 2"), {"--jobs", "--training"}));
  EXPECT_TRUE(one_line_error(run_ctwin("validate --training --jobs 0"), {"--jobs"}));
  EXPECT_TRUE(one_line_error(run_ctwin("validate --profiles ."), {"--profiles", "--training"}));
  EXPECT_TRUE(one_line_error(run_ctwin("validate --scaling --profiles ."), {"--profiles", "--training"}));
  EXPECT_TRUE(one_line_error(run_ctwin("validate --training --profiles /nonexistent-folder"), {"--profiles"}));
}

// --profiles: a profile named as the cases' H100, with every training kernel twice as long, takes
// their place; the other cases keep theirs; two profiles of one name are refused.
TEST_F(ValidateTrainingCli, ProfilesReplaceTheCasesGpusOfTheSameName) {
  auto profile = nlohmann::json::parse(std::ifstream(std::string(CTWIN_SOURCE_DIR) + "/models/gpus/h100-sxm.json"));
  profile["training_time_scale"] = 2.0;
  profile["sources"]["training_time_scale"] = "a test";
  std::filesystem::create_directories(dir_ / "profiles");
  std::ofstream(dir_ / "profiles" / "slow-h100.json") << profile.dump();
  const std::string only = " --only nemo2407-llama2-7b --only mbridge-25.11-llama38b-dgx-b200 --network analytical --format json";
  const auto plain = nlohmann::json::parse(run_ctwin("validate --training" + only).output).at("cases");
  const auto slow = run_ctwin("validate --training --profiles " + shell_quote((dir_ / "profiles").string()) + only);
  ASSERT_EQ(slow.status, 0) << slow.output;
  const auto cases = nlohmann::json::parse(slow.output).at("cases");
  ASSERT_EQ(cases.size(), 2u);
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const double ratio = cases[i].at("predicted").get<double>() / plain[i].at("predicted").get<double>();
    if (cases[i].at("id").get<std::string>().find("nemo2407") != std::string::npos) {
      EXPECT_LT(ratio, 0.6) << cases[i];  // compute-bound: close to half
    } else {
      EXPECT_DOUBLE_EQ(ratio, 1.0) << cases[i];  // a B200: not replaced
    }
  }
  std::ofstream(dir_ / "profiles" / "again.json") << profile.dump();
  EXPECT_TRUE(one_line_error(run_ctwin("validate --training --profiles " + shell_quote((dir_ / "profiles").string())),
                             {"/name"}));
}

// --calibrated: three dense H100 runs of one source, each predicted with the scale fitted on the
// other two; with no other source, no leave-one-source-out prediction.
TEST_F(ValidateTrainingCli, CalibratedPredictsEachRunWithTheOthersScale) {
  const std::string command = "validate --training --calibrated --network analytical --format json --only "
                              "nemo2407-llama3-8b --only nemo2407-llama2-7b --only nemo2407-gpt3-5b";
  const auto outcome = run_ctwin(command);
  ASSERT_EQ(outcome.status, 0) << outcome.output;
  EXPECT_EQ(outcome.output, run_ctwin(command + " --jobs 1").output) << "the same bytes whatever the jobs";
  const auto doc = nlohmann::json::parse(outcome.output);
  ASSERT_EQ(doc.at("cases").size(), 3u);
  for (const auto& c : doc.at("cases")) {
    EXPECT_EQ(c.at("fitted_on_runs").get<int>(), 2) << c;
    EXPECT_GT(c.at("training_time_scale").get<double>(), 1.0) << c;
    EXPECT_LT(std::abs(c.at("error_calibrated").get<double>()), std::abs(c.at("error_uncalibrated").get<double>())) << c;
    EXPECT_FALSE(c.contains("error_other_sources")) << c;
  }
  ASSERT_EQ(doc.at("gpus").size(), 1u);
  EXPECT_EQ(doc.at("gpus")[0].at("dense_runs").get<int>(), 3);
  EXPECT_EQ(doc.at("summary").at("dense").at("all").at("calibrated").at("count").get<int>(), 3);
}

class CalibrateTrainingCli : public ctwin::cli_testing::TempDirTest {};

// Fitted on one run, the written profile reproduces that run's measurement; runs on other GPUs
// are skipped, and a GPU with no run, flags of other modes, or no output are one-line errors.
TEST_F(CalibrateTrainingCli, OneRunIsReproducedByTheWrittenProfile) {
  std::filesystem::create_directories(dir_ / "profiles");
  const std::string out = (dir_ / "profiles" / "h100-fitted.json").string();
  const std::string only = " --only nemo2407-llama3-8b-8gpu --network analytical";
  const auto fit = run_ctwin("calibrate --training " + shell_quote(kCases) + " --base h100-sxm -o " + shell_quote(out) +
                             only + " --format json");
  ASSERT_EQ(fit.status, 0) << fit.output;
  const auto doc = nlohmann::json::parse(fit.output);
  EXPECT_GT(doc.at("training_time_scale").get<double>(), 1.0);
  EXPECT_LT(doc.at("fit_median_abs_error").get<double>(), 1e-3);
  EXPECT_EQ(doc.at("fitted_runs").get<int>(), 1);
  const auto check = run_ctwin("validate --training --profiles " + shell_quote((dir_ / "profiles").string()) + only +
                               " --format json");
  ASSERT_EQ(check.status, 0) << check.output;
  EXPECT_LT(std::abs(nlohmann::json::parse(check.output).at("cases")[0].at("error").get<double>()), 1e-3);

  const std::string cases = " --training " + shell_quote(kCases);
  EXPECT_TRUE(one_line_error(run_ctwin("calibrate" + cases + " --base a100-sxm-80gb -o x.json --only nemo2407"),
                             {"--training", "no run on"}));
  EXPECT_TRUE(one_line_error(run_ctwin("calibrate" + cases + " --base h100-sxm"), {"-o"}));
  EXPECT_TRUE(one_line_error(run_ctwin("calibrate" + cases + " -o x.json"), {"--base"}));
  EXPECT_TRUE(one_line_error(run_ctwin("calibrate" + cases + " --gemm x.csv --base h100-sxm -o x.json"),
                             {"one thing at a time"}));
  EXPECT_TRUE(one_line_error(run_ctwin("calibrate --gemm x.csv --base h100-sxm -o x.json --jobs 2"), {"--jobs"}));
  EXPECT_TRUE(one_line_error(run_ctwin("calibrate" + cases + " --base h100-sxm -o x.json --network simgrid"),
                             {"simgrid"}));
}

}  // namespace
