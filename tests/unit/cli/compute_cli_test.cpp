// `ctwin gemm` and `ctwin calibrate --gemm` from the outside: good input works and prints the
// JSON contract; bad CSVs, flags and GPUs give exit status 2 and one line naming the file, line
// and column (or the flag).

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>

#include "cli_runner.hpp"

namespace {

using ctwin::cli_testing::one_line_error;
using ctwin::cli_testing::run_ctwin;
using ctwin::cli_testing::shell_quote;

class ComputeCli : public ctwin::cli_testing::TempDirTest {
 protected:
  static std::string gemm_csv_args(const std::string& csv) {
    return "calibrate --gemm " + shell_quote(csv) + " --base h100-sxm -o /dev/null";
  }
};

TEST_F(ComputeCli, GemmPrintsTheJsonContract) {
  const auto outcome = run_ctwin("gemm --gpu h100-sxm --m 4096 --n 4096 --k 4096 --dtype bf16 --format json");
  ASSERT_EQ(outcome.status, 0) << outcome.output;
  const auto rows = nlohmann::json::parse(outcome.output).at("rows");
  ASSERT_EQ(rows.size(), 1u);
  for (const char* key : {"m", "n", "k", "dtype", "time_us", "tflops"}) EXPECT_TRUE(rows[0].contains(key)) << key;
  const double tflops = rows[0]["tflops"];
  EXPECT_NEAR(tflops, 2.0 * 4096 * 4096 * 4096 / rows[0]["time_us"].get<double>() * 1e-6, 1e-6 * tflops);
  EXPECT_GT(tflops, 0);
  EXPECT_LT(tflops, 989.4);  // never above the datasheet peak
}

TEST_F(ComputeCli, CalibrateWritesAProfileGemmCanUse) {
  const std::string csv = write("sweep.csv", "m,n,k,dtype,time_us\n4096,4096,4096,bf16,200\n8192,4096,4096,bf16,400\n");
  const std::string profile = (dir_ / "calibrated.json").string();
  const auto calibrate = run_ctwin("calibrate --gemm " + shell_quote(csv) + " --base h100-sxm -o " + shell_quote(profile));
  ASSERT_EQ(calibrate.status, 0) << calibrate.output;
  const auto gemm = run_ctwin("gemm --gpu " + shell_quote(profile) + " --shapes " + shell_quote(csv) + " --format json");
  ASSERT_EQ(gemm.status, 0) << gemm.output;
  const auto rows = nlohmann::json::parse(gemm.output).at("rows");
  ASSERT_EQ(rows.size(), 2u);
  // Fitted at exactly these shapes: the table gives back the measured times.
  EXPECT_NEAR(rows[0]["time_us"].get<double>(), 200, 0.01);
  EXPECT_NEAR(rows[1]["time_us"].get<double>(), 400, 0.02);
}

TEST_F(ComputeCli, MissingColumn) {
  const std::string csv = write("no-k.csv", "m,n,dtype,time_us\n1,2,bf16,3\n");
  EXPECT_TRUE(one_line_error(run_ctwin(gemm_csv_args(csv)), {csv, "line 1", "missing column 'k'"}));
}

TEST_F(ComputeCli, MissingMeasurementColumn) {
  const std::string csv = write("no-time.csv", "m,n,k,dtype\n1,2,3,bf16\n");
  EXPECT_TRUE(one_line_error(run_ctwin(gemm_csv_args(csv)), {csv, "line 1", "time_us"}));
}

TEST_F(ComputeCli, NonPositiveSize) {
  const std::string csv = write("zero.csv", "# a comment\nm,n,k,dtype,time_us\n1,2,3,bf16,4\n8,0,8,bf16,4\n");
  EXPECT_TRUE(one_line_error(run_ctwin(gemm_csv_args(csv)), {csv, "line 4, column 2 (n)", "positive", "'0'"}));
}

TEST_F(ComputeCli, MalformedSize) {
  const std::string csv = write("text.csv", "m,n,k,dtype,time_us\n1,2,three,bf16,4\n");
  EXPECT_TRUE(one_line_error(run_ctwin(gemm_csv_args(csv)), {csv, "line 2, column 3 (k)", "'three'"}));
}

TEST_F(ComputeCli, UnknownDtype) {
  const std::string csv = write("dtype.csv", "dtype,m,n,k,time_us\nint4,1,2,3,4\n");
  EXPECT_TRUE(one_line_error(run_ctwin(gemm_csv_args(csv)), {csv, "line 2, column 1 (dtype)", "'int4'", "bf16"}));
}

TEST_F(ComputeCli, NonPositiveTime) {
  const std::string csv = write("time.csv", "m,n,k,dtype,time_us\n1,2,3,bf16,-4\n");
  EXPECT_TRUE(one_line_error(run_ctwin(gemm_csv_args(csv)), {csv, "line 2, column 5 (time_us)", "positive"}));
}

TEST_F(ComputeCli, ShortRow) {
  const std::string csv = write("short.csv", "m,n,k,dtype,time_us\n1,2,3\n");
  EXPECT_TRUE(one_line_error(run_ctwin(gemm_csv_args(csv)), {csv, "line 2, column 4", "expected 5 fields"}));
}

TEST_F(ComputeCli, DtypeTheGpuLacks) {
  const std::string csv = write("fp8.csv", "m,n,k,dtype,time_us\n1,2,3,fp8,4\n");
  EXPECT_TRUE(one_line_error(run_ctwin("calibrate --gemm " + shell_quote(csv) + " --base a100-sxm-80gb -o /dev/null"),
                             {csv, "line 2", "no fp8"}));
}

TEST_F(ComputeCli, ShapesCsvErrorsNameTheLine) {
  const std::string csv = write("shapes.csv", "m,n,k,dtype\n1,2,3,bf16\n1,-2,3,bf16\n");
  EXPECT_TRUE(one_line_error(run_ctwin("gemm --gpu h100-sxm --shapes " + shell_quote(csv)), {csv, "line 3, column 2 (n)"}));
}

TEST_F(ComputeCli, UnknownGpu) {
  EXPECT_TRUE(one_line_error(run_ctwin("gemm --gpu h900 --m 1 --n 1 --k 1"), {"--gpu", "'h900'", "h100-sxm"}));
}

TEST_F(ComputeCli, BadGemmFlags) {
  EXPECT_TRUE(one_line_error(run_ctwin("gemm --gpu h100-sxm --m 0 --n 1 --k 1"), {"--m", "positive"}));
  EXPECT_TRUE(one_line_error(run_ctwin("gemm --gpu h100-sxm --m 1 --n 1 --k 1 --dtype int8"), {"--dtype", "'int8'"}));
  EXPECT_TRUE(one_line_error(run_ctwin("gemm --gpu h100-sxm"), {"--m", "--shapes"}));
  EXPECT_TRUE(one_line_error(run_ctwin("gemm --gpu a100-sxm-80gb --m 1 --n 1 --k 1 --dtype fp8"), {"fp8"}));
}

TEST_F(ComputeCli, CalibrateWithoutInput) {
  EXPECT_TRUE(one_line_error(run_ctwin("calibrate --base h100-sxm -o /dev/null"), {"calibrate", "--gemm"}));
  const std::string csv = write("ok.csv", "m,n,k,dtype,time_us\n1,2,3,bf16,4\n");
  EXPECT_TRUE(one_line_error(run_ctwin("calibrate --gemm " + shell_quote(csv) + " --base h100-sxm"), {"-o", "required"}));
}

TEST_F(ComputeCli, BadGpuProfile) {
  const std::string profile = write("gpu.json", R"({"name": "x", "arch": "hopper", "peak_dense": {"bf16": 989}})");
  EXPECT_TRUE(one_line_error(run_ctwin("gemm --gpu " + shell_quote(profile) + " --m 1 --n 1 --k 1"),
                             {profile, "/peak_dense/bf16", "TFLOPS"}));
}

}  // namespace
