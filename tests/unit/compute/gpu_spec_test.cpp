// GPU profiles: every bundled one loads strictly, and the reader rejects unsourced or unit-less
// figures with the file and the JSON pointer.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>

#include <unistd.h>

#include "ctwin/compute/gpu_spec.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/core/json_reader.hpp"

namespace ctwin::compute {
namespace {

const std::filesystem::path kGpus = std::filesystem::path(CTWIN_SOURCE_DIR) / "models" / "gpus";

TEST(GpuSpec, EveryBundledProfileLoads) {
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kGpus)) {
    if (!entry.is_regular_file()) continue;  // calibrated/ has its own test (training_calibration_test)
    SCOPED_TRACE(entry.path().string());
    const GpuSpec gpu = load_gpu_spec(entry.path());
    EXPECT_TRUE(gpu.peak_dense.contains(Dtype::kBf16));
    EXPECT_GT(gpu.sm_count, 0);
    ++count;
  }
  EXPECT_EQ(count, 11);
}

TEST(GpuSpec, CalibratedProfilesCarryATable) {
  for (const char* name : {"a100-sxm-80gb", "h100-sxm", "b200", "l40s"}) {
    const GpuSpec gpu = load_gpu_spec(kGpus / (std::string(name) + ".json"));
    ASSERT_TRUE(gpu.gemm_table.has_value()) << name;
    EXPECT_NE(gpu.gemm_table->grid(Dtype::kBf16), nullptr) << name;
  }
}

// A table relative to the roofline may pass 1 (l40s's reaches 3.09), but never claim a GEMM
// faster than the peak: efficiency 1e9 made `ctwin gemm` print 8.3 times the peak (issue 36).
TEST(GpuSpec, ATableFasterThanThePeakIsRefusedAtItsPoint) {
  const std::string file = (kGpus / "h100-sxm.json").string();
  nlohmann::json document = load_json_file(file);
  ASSERT_TRUE(document["gemm_table"].contains("bf16"));
  EXPECT_NO_THROW((void)parse_gpu_spec(document, file));
  // 2 at the largest shape (32768x16384x16384, compute-bound): under the table's own ceiling of
  // 100 times the roofline, so the peak check is what refuses it, at its point.
  auto& efficiency = document["gemm_table"]["bf16"]["efficiency"];
  const std::size_t last = efficiency.size() - 1;
  efficiency[last] = 2;
  try {
    (void)parse_gpu_spec(document, file);
    FAIL() << "an efficiency of 2 at the largest shape was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.pointer(), "/gemm_table/bf16/efficiency/" + std::to_string(last));
    EXPECT_NE(std::string(e.what()).find("above the"), std::string::npos) << e.what();
  }
  // 1e9 no longer reaches the peak check: the table's reader refuses it first.
  efficiency[3] = 1e9;
  try {
    (void)parse_gpu_spec(document, file);
    FAIL() << "an efficiency of 1e9 was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("at most 100"), std::string::npos) << e.what();
  }
}

TEST(GpuSpec, DatasheetRatesParse) {
  const GpuSpec h100 = load_gpu_spec(kGpus / "h100-sxm.json");
  EXPECT_DOUBLE_EQ(h100.peak(Dtype::kBf16).teraflops(), 989.4);
  EXPECT_DOUBLE_EQ(h100.hbm_bandwidth.bytes_per_second(), 3.35e12);
  const GpuSpec b200 = load_gpu_spec(kGpus / "b200.json");
  EXPECT_DOUBLE_EQ(b200.peak(Dtype::kFp4).teraflops(), 9000);
  // GB300 NVL72 datasheet rack totals with sparsity, halved and over 72 GPUs.
  const GpuSpec gb300 = load_gpu_spec(kGpus / "gb300.json");
  EXPECT_DOUBLE_EQ(gb300.peak(Dtype::kFp8).teraflops(), 720e3 / 2 / 72);
  EXPECT_DOUBLE_EQ(gb300.peak(Dtype::kBf16).teraflops(), 360e3 / 2 / 72);
  EXPECT_DOUBLE_EQ(gb300.hbm_bandwidth.bytes_per_second(), 576e12 / 72);
  // torchtitan's Grand Teton H100: its memory as published, the 700 W SXM5 peaks (assumed).
  const GpuSpec teton = load_gpu_spec(kGpus / "h100-sxm-96gb-hbm2e.json");
  EXPECT_DOUBLE_EQ(teton.hbm_bandwidth.bytes_per_second(), 2.4e12);
  EXPECT_DOUBLE_EQ(teton.peak(Dtype::kBf16).teraflops(), h100.peak(Dtype::kBf16).teraflops());
}

nlohmann::json h100_document() { return load_json_file(kGpus / "h100-sxm.json"); }

void expect_error(const nlohmann::json& document, const std::string& pointer, const std::string& words) {
  try {
    (void)parse_gpu_spec(document, "gpu.json");
    ADD_FAILURE() << "accepted a bad profile";
  } catch (const InputError& e) {
    EXPECT_EQ(e.source(), "gpu.json");
    EXPECT_EQ(e.pointer(), pointer) << e.what();
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
  }
}

TEST(GpuSpec, RejectsAFigureWithoutSource) {
  auto document = h100_document();
  document["sources"].erase("hbm_bandwidth");
  expect_error(document, "/sources/hbm_bandwidth", "missing");
}

TEST(GpuSpec, RejectsAUnitlessPeak) {
  auto document = h100_document();
  document["peak_dense"]["bf16"] = 989.4;
  expect_error(document, "/peak_dense/bf16", "TFLOPS");
}

TEST(GpuSpec, RejectsUnknownDtypeAndKey) {
  auto document = h100_document();
  document["peak_dense"]["int8"] = "1979TFLOPS";
  expect_error(document, "/peak_dense/int8", "unknown");
  document = h100_document();
  document["gemm_table"]["bf16"]["efficiency"][0] = -1;
  expect_error(document, "/gemm_table/bf16/efficiency", "positive");
}

// NCCL's tuning keys on the family (collectives/tuning.hpp), so a profile says it: missing or
// misspelt, the profile is refused at its field, naming the families it may be.
TEST(GpuSpec, ArchIsRequiredAndOneOfTheFamilies) {
  auto document = h100_document();
  EXPECT_EQ(parse_gpu_spec(document, "gpu.json").arch, "hopper");
  document["arch"] = "hoper";
  expect_error(document, "/arch", "'blackwell'");
  document.erase("arch");
  expect_error(document, "/arch", "");
  EXPECT_THROW((void)read_gpu_arch("/nonexistent/gpu.json"), InputError);
}

// Every bundled profile, calibrated ones included, names the family its silicon is (datasheets:
// A100 Ampere, L40S Ada, H100/H200 Hopper, B200/GB200/GB300 Blackwell, MI300X CDNA 3), and the
// light reader collectives use agrees with the full one.
TEST(GpuSpec, EveryBundledProfileNamesItsArchitecture) {
  const std::map<std::string, std::string> expected{
      {"a100", "ampere"}, {"l40s", "ada"}, {"h100", "hopper"}, {"h200", "hopper"},
      {"b200", "blackwell"}, {"gb200", "blackwell"}, {"gb300", "blackwell"}, {"mi300x", "cdna3"},
      {"ascend", "davinci"}};
  int count = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(kGpus)) {
    if (!entry.is_regular_file() || entry.path().extension() != ".json") continue;
    SCOPED_TRACE(entry.path().string());
    const std::string name = entry.path().stem().string();
    const auto family = std::find_if(expected.begin(), expected.end(),
                                     [&](const auto& pair) { return name.rfind(pair.first, 0) == 0; });
    ASSERT_NE(family, expected.end()) << "add the new profile's family to this test";
    EXPECT_EQ(read_gpu_arch(entry.path()), family->second);
    EXPECT_EQ(parse_gpu_spec(load_json_file(entry.path()), entry.path().string()).arch, family->second);
    ++count;
  }
  EXPECT_GE(count, 20);
}

// The MoE and host parameters are optional: absent, the sourced defaults; present, with a source
// and in range.
TEST(GpuSpec, MoeAndHostParametersDefaultOrComeWithASource) {
  const GpuSpec plain = parse_gpu_spec(h100_document(), "gpu.json");
  EXPECT_DOUBLE_EQ(plain.grouped_gemm_half_speed_rows, 304);
  EXPECT_DOUBLE_EQ(plain.permute_hbm_efficiency, 0.337);
  EXPECT_NEAR(plain.host_launch.seconds(), 10e-6, 1e-15);
  auto document = h100_document();
  document["host_launch"] = "4us";
  expect_error(document, "/sources", "host_launch");
  document["sources"]["host_launch"] = "measured on our nodes";
  EXPECT_NEAR(parse_gpu_spec(document, "gpu.json").host_launch.seconds(), 4e-6, 1e-15);
  document["host_launch"] = "5ms";
  expect_error(document, "/host_launch", "launch");
  document = h100_document();
  document["grouped_gemm_half_speed_rows"] = -3;
  document["sources"]["grouped_gemm_half_speed_rows"] = "fit";
  expect_error(document, "/grouped_gemm_half_speed_rows", "");
  document = h100_document();
  document["permute_hbm_efficiency"] = 1.5;
  document["sources"]["permute_hbm_efficiency"] = "fit";
  expect_error(document, "/permute_hbm_efficiency", "");
}

// Profiles of the same silicon borrow a measured table: the lender's grids fill the dtypes the
// borrower has none of, its own grids win, and every way of naming a lender badly is an error.
TEST(GpuSpec, BorrowedTablesComeFromTheSameSilicon) {
  const GpuSpec b200 = load_gpu_spec(kGpus / "b200.json");
  const GpuSpec gb200 = load_gpu_spec(kGpus / "gb200.json");
  EXPECT_EQ(gb200.gemm_table_from, "b200");
  ASSERT_TRUE(gb200.gemm_table.has_value());
  for (const Dtype dtype : {Dtype::kBf16, Dtype::kFp8}) {
    ASSERT_NE(gb200.gemm_table->grid(dtype), nullptr);
    EXPECT_EQ(gb200.gemm_table->grid(dtype)->efficiency, b200.gemm_table->grid(dtype)->efficiency);
  }
  EXPECT_EQ(load_gpu_spec(kGpus / "h200.json").gemm_table_from, "h100-sxm");
  EXPECT_EQ(load_gpu_spec(kGpus / "a100-sxm-40gb.json").gemm_table_from, "a100-sxm-80gb");
  EXPECT_FALSE(load_gpu_spec(kGpus / "mi300x.json").gemm_table.has_value());
}

class BorrowedTableFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("ctwin-borrow-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    write("lender.json", h100_document());
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path write(const std::string& name, const nlohmann::json& document) {
    std::ofstream(dir_ / name) << document.dump(2);
    return dir_ / name;
  }
  static nlohmann::json borrower(const std::string& lender) {
    nlohmann::json document = h100_document();
    document.erase("gemm_table");
    document["gemm_table_from"] = lender;
    document["sources"]["gemm_table_from"] = "test: same silicon";
    return document;
  }
  std::filesystem::path dir_;
};

TEST_F(BorrowedTableFiles, OwnGridsWinAndTheLenderFillsTheRest) {
  nlohmann::json own_bf16 = borrower("lender");
  own_bf16["gemm_table"] = {{"bf16", {{"m", {1}}, {"n", {1}}, {"k", {1}}, {"efficiency", {0.5}}}}};
  const GpuSpec gpu = load_gpu_spec(write("gpu.json", own_bf16));
  const GpuSpec lender = load_gpu_spec(dir_ / "lender.json");
  ASSERT_TRUE(gpu.gemm_table.has_value());
  EXPECT_EQ(gpu.gemm_table->grid(Dtype::kBf16)->efficiency, std::vector<double>{0.5});
  EXPECT_EQ(gpu.gemm_table->grid(Dtype::kFp8)->efficiency, lender.gemm_table->grid(Dtype::kFp8)->efficiency);
}

TEST_F(BorrowedTableFiles, BadLendersAreErrors) {
  const auto expect_load_error = [&](const nlohmann::json& document, const std::string& pointer,
                                     const std::string& words) {
    try {
      (void)load_gpu_spec(write("gpu.json", document));
      ADD_FAILURE() << "accepted " << document["gemm_table_from"];
    } catch (const InputError& e) {
      EXPECT_EQ(e.pointer(), pointer) << e.what();
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  expect_load_error(borrower("missing"), "/gemm_table_from", "no profile");
  expect_load_error(borrower("../lender"), "/gemm_table_from", "name of a profile");
  write("chain.json", borrower("lender"));
  expect_load_error(borrower("chain"), "/gemm_table_from", "no measured table of its own");
  nlohmann::json unsourced = borrower("lender");
  unsourced["sources"].erase("gemm_table_from");
  expect_load_error(unsourced, "/sources", "gemm_table_from");
}

}  // namespace
}  // namespace ctwin::compute
