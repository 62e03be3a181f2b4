// `ctwin layer` and `ctwin calibrate --layers` from the outside: a layer's kernels as JSON, a
// measured file compared row by row, a calibrated profile, and one-line errors.

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <string>

#include "cli_runner.hpp"

namespace {

using ctwin::cli_testing::one_line_error;
using ctwin::cli_testing::run_ctwin;
using ctwin::cli_testing::shell_quote;

class LayerCli : public ctwin::cli_testing::TempDirTest {};

TEST_F(LayerCli, KernelsAddUpToTheTotalsAndTheSameBytesTwice) {
  const auto first = run_ctwin("layer --model llama3-8b --gpu h100-sxm --seq 8192 --format json");
  ASSERT_EQ(first.status, 0) << first.output;
  EXPECT_EQ(run_ctwin("layer --model llama3-8b --gpu h100-sxm --seq 8192 --format json").output, first.output);
  const auto out = nlohmann::json::parse(first.output);
  double forward_us = 0;
  for (const auto& k : out.at("kernels")) forward_us += k.at("forward_us").get<double>();
  EXPECT_NEAR(forward_us, out.at("forward_ms").get<double>() * 1e3, 1e-6);
  EXPECT_GT(out.at("backward_ms").get<double>(), out.at("forward_ms").get<double>());
}

TEST_F(LayerCli, MeasuredRowsArePredictedWithTheirError) {
  const auto file = write("layers.json", R"({"gpu": "NVIDIA H100 80GB HBM3", "rows": [
    {"model": "llama3-8b", "seq_len": 8192, "micro_batch": 1, "precision": "bf16", "phase": "hot",
     "forward_ms": 8.0, "backward_ms": 16.0}]})");
  const auto result = run_ctwin("layer --measured " + shell_quote(file) + " --gpu h100-sxm --format json");
  ASSERT_EQ(result.status, 0) << result.output;
  const auto row = nlohmann::json::parse(result.output).at("rows").at(0);
  EXPECT_NEAR(row.at("forward_error").get<double>(), row.at("predicted_forward_ms").get<double>() / 8.0 - 1, 1e-12);
  EXPECT_NEAR(row.at("backward_error").get<double>(), row.at("predicted_backward_ms").get<double>() / 16.0 - 1, 1e-12);
}

TEST_F(LayerCli, BadRequestsAreOneLineErrors) {
  EXPECT_TRUE(one_line_error(run_ctwin("layer"), {"--model"}));
  EXPECT_TRUE(one_line_error(run_ctwin("layer --model llama3-8b --layer 99"), {"--layer"}));
  EXPECT_TRUE(one_line_error(run_ctwin("layer --model llama3-8b --gpu nope"), {"nope"}));
  const auto file = write("layers.json", R"({"gpu": "x", "rows": [{"model": "llama3-8b"}]})");
  EXPECT_TRUE(one_line_error(run_ctwin("layer --measured " + shell_quote(file)), {"/rows/0"}));
  EXPECT_TRUE(one_line_error(run_ctwin("layer --model llama3-8b --measured " + shell_quote(file)), {"--model"}));
}

class CalibrateLayersCli : public ctwin::cli_testing::TempDirTest {};

// The written profile carries the fitted scale with its source, and `ctwin layer` on it predicts
// the measured time; a profile that borrows its GEMM table takes the lender's along.
TEST_F(CalibrateLayersCli, WritesAProfileThatPredictsTheMeasuredLayer) {
  const auto plain = nlohmann::json::parse(run_ctwin("layer --model llama3-8b --gpu gb200 --seq 8192 --format json").output);
  const double total = plain.at("forward_ms").get<double>() + plain.at("backward_ms").get<double>();
  const auto file = write("layers.json", R"({"gpu": "synthetic", "rows": [{"model": "llama3-8b", "seq_len": 8192,)"
                                         R"( "micro_batch": 1, "precision": "bf16", "phase": "hot", "forward_ms": )" +
                                             std::to_string(plain.at("forward_ms").get<double>() * 1.2) +
                                             R"(, "backward_ms": )" +
                                             std::to_string(plain.at("backward_ms").get<double>() * 1.2) + "}]}");
  const std::string out = (dir_ / "gb200-hot.json").string();
  const auto result = run_ctwin("calibrate --layers " + shell_quote(file) + " --base gb200 -o " + shell_quote(out) +
                                " --format json");
  ASSERT_EQ(result.status, 0) << result.output;
  EXPECT_NEAR(nlohmann::json::parse(result.output).at("training_time_scale").get<double>(), 1.2, 1e-5);
  const auto scaled = nlohmann::json::parse(run_ctwin("layer --model llama3-8b --gpu " + shell_quote(out) +
                                                      " --seq 8192 --format json").output);
  EXPECT_NEAR(scaled.at("forward_ms").get<double>() + scaled.at("backward_ms").get<double>(), 1.2 * total, 1e-4 * total);
  EXPECT_TRUE(one_line_error(run_ctwin("calibrate --layers " + shell_quote(file) + " -o " + shell_quote(out)), {"--base"}));
  EXPECT_TRUE(one_line_error(run_ctwin("calibrate --layers " + shell_quote(file) + " --gemm x.csv --base gb200 -o " +
                                       shell_quote(out)),
                             {"one thing at a time"}));
}

}  // namespace
