// ctwin validate --trace's oracles (issue 41 item 3): the twin's own trace of a scenario compares
// with that scenario at zero error in every row, and a trace with one class's kernels stretched by
// k moves exactly that class's rows, by 1/k - 1, and no other.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "ctwin/api/evaluate.hpp"
#include "ctwin/api/report_json.hpp"
#include "ctwin/validation/trace_calibration.hpp"
#include "ctwin/validation/trace_validation.hpp"
#include "ctwin/calibration/kernel_class.hpp"
#include "ctwin/core/error.hpp"
#include "source_root.hpp"

namespace ctwin::api {
namespace {

// Llama 3 8B on 64 H100 with one micro-batch a step, on the analytical network: the oracles hold for
// any scenario, and a small trace keeps the sanitized run short.
Scenario small_default() {
  return Scenario::load(kDefaultScenario).with("training.global_batch", 16).with("network", "analytical");
}

class TraceValidationTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    EvalContext context;
    own_trace_ = new nlohmann::json(chrome_trace_json(evaluate(small_default(), context).step.replay));
  }
  static void TearDownTestSuite() {
    delete own_trace_;
    own_trace_ = nullptr;
  }
  static inline nlohmann::json* own_trace_ = nullptr;
  std::string write(const std::string& name, const nlohmann::json& trace) {
    const auto path = std::filesystem::temp_directory_path() / ("ctwin-tv-" + std::to_string(::getpid()) + "-" + name);
    std::ofstream(path) << trace.dump();
    written_.push_back(path);
    return path.string();
  }
  void TearDown() override {
    for (const auto& p : written_) std::filesystem::remove(p);
  }
  Scenario scenario_ = small_default();
  const nlohmann::json& trace_ = *own_trace_;
  std::vector<std::filesystem::path> written_;
};

TEST_F(TraceValidationTest, TheTwinsOwnTraceComparesAtZeroError) {
  EvalContext context;
  const TraceValidation v = validate_trace(write("own.json", trace_), scenario_, context);
  EXPECT_TRUE(v.by_phase);
  ASSERT_GE(v.rows.size(), 8u);
  for (const auto& r : v.rows) {
    ASSERT_TRUE(r.compared()) << calibration::kernel_class_name(r.kernel_class) << " " << r.phase;
    EXPECT_EQ(r.error(), 0.0) << calibration::kernel_class_name(r.kernel_class) << " " << r.phase;
  }
  EXPECT_EQ(v.compared.count, v.rows.size());
  EXPECT_EQ(v.compared.max_abs, 0.0);
}

TEST_F(TraceValidationTest, OneClassStretchedMovesThatClassAlone) {
  const double k = 1.5;
  nlohmann::json stretched = trace_;
  for (auto& e : stretched["traceEvents"]) {
    if (e.value("ph", "") == "X" && calibration::classify_kernel(e["name"].get<std::string>()) == calibration::KernelClass::kGemm) {
      e["dur"] = e["dur"].get<double>() * k;
    }
  }
  EvalContext context;
  const TraceValidation v = validate_trace(write("stretched.json", stretched), scenario_, context);
  int gemm_rows = 0;
  for (const auto& r : v.rows) {
    ASSERT_TRUE(r.compared());
    if (r.kernel_class == calibration::KernelClass::kGemm) {
      ++gemm_rows;
      EXPECT_NEAR(r.error(), 1 / k - 1, 1e-12) << r.phase;
    } else {
      EXPECT_EQ(r.error(), 0.0) << calibration::kernel_class_name(r.kernel_class) << " " << r.phase;
    }
  }
  EXPECT_EQ(gemm_rows, 3);  // forward, backward, and the logits outside the layers
}

TEST_F(TraceValidationTest, ATraceOfAnotherModelIsRefusedNamingIt) {
  nlohmann::json kineto = {{"traceEvents",
                            {{{"ph", "X"}, {"name", "sm90_xmma_gemm"}, {"cat", "kernel"}, {"ts", 0}, {"dur", 10}, {"pid", 0}}}}};
  const std::string path = write("other-model.json", kineto);
  auto meta = std::filesystem::path(path);
  meta.replace_extension(".meta.json");
  std::ofstream(meta) << R"({"model": "qwen3-30b-a3b"})";
  written_.push_back(meta);
  EvalContext context;
  try {
    (void)validate_trace(path, scenario_, context);
    FAIL() << "a Qwen3 trace against a Llama scenario was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.source(), path);
    EXPECT_EQ(e.pointer(), "model");
    EXPECT_NE(std::string(e.what()).find("qwen3-30b-a3b"), std::string::npos) << e.what();
  }
  std::ofstream(meta) << R"({"model": "models/llm/llama3-8b.json"})";
  EXPECT_NO_THROW((void)validate_trace(path, scenario_, context));
}

}  // namespace
}  // namespace ctwin::api

namespace ctwin::api {
namespace {

// calibrate --trace's closed loop: a trace whose compute is the twin's stretched by k fits
// training_time_scale = base × k, and the step on the fitted profile matches the trace's layers.
TEST_F(TraceValidationTest, CalibrationFromAStretchedTraceRecoversTheStretch) {
  const double k = 1.25;
  nlohmann::json stretched = trace_;
  for (auto& e : stretched["traceEvents"]) {
    if (e.value("ph", "") == "X" && !calibration::is_communication(calibration::classify_kernel(e["name"].get<std::string>()))) {
      e["dur"] = e["dur"].get<double>() * k;
    }
  }
  const std::string trace = write("slow-compute.json", stretched);
  const auto output = std::filesystem::temp_directory_path() / ("ctwin-tv-" + std::to_string(::getpid()) + "-fitted.json");
  written_.push_back(output);
  EvalContext context;
  const TraceCalibration c = calibrate_trace({trace, "h100-sxm", output.string()}, scenario_, context);
  EXPECT_NEAR(c.scale / c.base_scale, k, 1e-12);
  EXPECT_LT(c.after_fit.max_abs, 1e-12);
  const TraceValidation after = validate_trace(trace, scenario_.with("gpu", output.string()), context);
  for (const auto& r : after.rows) {
    if (calibration::is_communication(r.kernel_class) || r.phase == "outside_layers") continue;
    EXPECT_NEAR(r.error(), 0, 1e-6) << calibration::kernel_class_name(r.kernel_class) << " " << r.phase;  // the profile stores the scale as text
  }
}

}  // namespace
}  // namespace ctwin::api
