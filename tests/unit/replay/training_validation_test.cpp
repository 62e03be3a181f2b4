// Training-step validation cases: every published run accounted for exactly once, the cases file
// read strictly, and the SC'21 cases compared in the FLOP convention the paper measured.

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "ctwin/core/error.hpp"
#include "ctwin/core/json_reader.hpp"
#include "ctwin/replay/training_step.hpp"
#include "ctwin/replay/training_validation.hpp"
#include "source_root.hpp"

namespace ctwin::replay {
namespace {

namespace fs = std::filesystem;

const fs::path kCases = kRootDir / "validation/training/cases.json";

const TrainingCases& bundled() {
  static const TrainingCases cases = load_training_cases(kCases, kRootDir);
  return cases;
}

TEST(TrainingValidation, EveryPublishedRunIsACaseOrNotExpressibleExactlyOnce) {
  const auto runs = load_json_file(kRootDir / "validation/training/training_runs.json");
  std::set<std::string> published;
  for (const auto& run : runs.at("runs")) published.insert(run.at("id").get<std::string>());
  ASSERT_EQ(published.size(), runs.at("runs").size()) << "run ids of training_runs.json are unique";

  std::multiset<std::string> accounted;
  for (const auto& c : bundled().cases) accounted.insert(c.id);
  for (const auto& n : bundled().not_expressible) {
    accounted.insert(n.id);
    EXPECT_FALSE(n.reason.empty()) << n.id;
  }
  EXPECT_EQ(accounted.size(), published.size()) << "a run is counted twice or one is missing";
  EXPECT_EQ(std::set<std::string>(accounted.begin(), accounted.end()), published);
  EXPECT_FALSE(bundled().cases.empty());
}

// A cases file with one edit, to check that the reader refuses it.
class TrainingCasesFile : public ::testing::Test {
 protected:
  void TearDown() override { fs::remove(path_); }
  fs::path write(const nlohmann::json& doc) {
    path_ = fs::temp_directory_path() /
            ("ctwin-cases-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + ".json");
    std::ofstream(path_) << doc.dump();
    return path_;
  }
  static nlohmann::json original() { return load_json_file(kCases); }
  fs::path path_;
};

TEST_F(TrainingCasesFile, RejectsAnUnknownKeyInACase) {
  auto doc = original();
  doc["cases"][0]["measured"]["tflops"] = 1;
  EXPECT_THROW((void)load_training_cases(write(doc), kRootDir), InputError);
}

TEST_F(TrainingCasesFile, RejectsARunListedTwice) {
  auto doc = original();
  doc["not_expressible"].push_back({{"id", doc["cases"][0]["id"]}, {"group", "g"}, {"source", "s"}, {"reason", "r"}});
  try {
    (void)load_training_cases(write(doc), kRootDir);
    FAIL() << "a duplicate id was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("more than once"), std::string::npos) << e.what();
  }
}

TEST_F(TrainingCasesFile, RejectsAnUnknownMetricAndAMissingScenarioField) {
  auto doc = original();
  doc["cases"][0]["measured"]["metric"] = "tflops";
  EXPECT_THROW((void)load_training_cases(write(doc), kRootDir), InputError);
  doc = original();
  doc["cases"][0]["scenario"].erase("gpus");
  EXPECT_THROW((void)load_training_cases(write(doc), kRootDir), InputError);
}

TEST_F(TrainingCasesFile, RejectsAnMfuGivenAsAPercentage) {
  auto doc = original();
  doc["cases"][0]["measured"] = {{"metric", "mfu"}, {"value", 47}, {"conversion", "percent by mistake"}};
  EXPECT_THROW((void)load_training_cases(write(doc), kRootDir), InputError);
}

// SC'21 Table 1 reports hardware FLOPs with full recompute: 96·B·s·l·h²·(1 + s/6h + V/16lh) per
// iteration (its eq. 3). The case must be compared in exactly that unit, not in model FLOPs.
TEST(TrainingValidation, Sc21CaseIsComparedInThePapersHardwareFlops) {
  const TrainingCase* sc21 = nullptr;
  for (const auto& c : bundled().cases) {
    if (c.id == "megatron-sc21-table1-18B") sc21 = &c;
  }
  ASSERT_NE(sc21, nullptr);
  EXPECT_EQ(sc21->metric, TrainingMetric::kHardwareTflopsPerGpu);
  const auto& m = sc21->scenario.model;
  const auto& split = sc21->scenario.split;
  EXPECT_EQ(split.recompute, workload::Recompute::kFull);
  const auto results = validate_training({sc21}, std::nullopt);
  ASSERT_EQ(results.size(), 1u);
  const StepReport& r = results[0].report;

  const double B = split.global_batch, s = split.seq_len, l = m.layers, h = m.hidden, V = m.vocab;
  const double paper_flops = 96 * B * s * l * h * h * (1 + s / (6 * h) + V / (16 * l * h));
  const double paper_tflops = paper_flops / r.step_time_s / sc21->scenario.gpus / 1e12;
  EXPECT_NEAR(results[0].predicted / paper_tflops, 1, 1e-9);
  // Model FLOPs would be 3/4 of the recomputed ones, up to the logits: the choice matters.
  EXPECT_LT(r.model_tflops_per_gpu, 0.8 * results[0].predicted);
  EXPECT_NEAR(results[0].error, results[0].predicted / sc21->measured - 1, 1e-12);
  EXPECT_TRUE(std::isfinite(results[0].error));
}

TEST(TrainingValidation, ProgressCountsEachCaseAsItFinishes) {
  std::vector<const TrainingCase*> chosen;
  for (const auto& c : bundled().cases) {
    if (c.id.find("sc21-table1-1.7B") != std::string::npos || c.id.find("sc21-table1-3.6B") != std::string::npos) {
      chosen.push_back(&c);
    }
  }
  ASSERT_EQ(chosen.size(), 2u);
  std::vector<std::string> seen;
  const auto results = validate_training(chosen, network::ModelKind::kAnalytical,
                                         [&](std::size_t i, std::size_t n, const TrainingCase& c) {
                                           EXPECT_EQ(i, seen.size());
                                           EXPECT_EQ(n, 2u);
                                           seen.push_back(c.id);
                                         });
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(seen, (std::vector<std::string>{chosen[0]->id, chosen[1]->id}));
}

// Cases run on several threads give exactly what one thread gives, in the same order, and the
// progress callback counts every case once.
TEST(TrainingValidation, ParallelJobsGiveTheSameResultsInOrder) {
  std::vector<const TrainingCase*> chosen;
  for (const auto& c : bundled().cases) {
    if (c.id.find("sc21") != std::string::npos || c.id.find("nemo2407-llama2") != std::string::npos) chosen.push_back(&c);
  }
  ASSERT_GE(chosen.size(), 12u);
  const auto serial = validate_training(chosen, network::ModelKind::kAnalytical);
  std::vector<std::size_t> counts;
  std::set<std::string> finished;
  const auto parallel = validate_training(
      chosen, network::ModelKind::kAnalytical,
      [&](std::size_t i, std::size_t, const TrainingCase& c) {
        counts.push_back(i);
        finished.insert(c.id);
      },
      4);
  ASSERT_EQ(parallel.size(), serial.size());
  for (std::size_t i = 0; i < serial.size(); ++i) {
    EXPECT_EQ(parallel[i].training_case, chosen[i]);
    EXPECT_EQ(parallel[i].predicted, serial[i].predicted) << chosen[i]->id;
    EXPECT_EQ(parallel[i].report.step_time_s, serial[i].report.step_time_s) << chosen[i]->id;
  }
  ASSERT_EQ(counts.size(), chosen.size());
  for (std::size_t i = 0; i < counts.size(); ++i) EXPECT_EQ(counts[i], i);
  EXPECT_EQ(finished.size(), chosen.size());
}

TEST(TrainingValidation, TokensPerGpuIsTheStepsTokensOverGpus) {
  StepReport r;
  r.tokens_per_s = 64000;
  r.hardware_tflops_per_gpu = 3;
  r.model_tflops_per_gpu = 2;
  r.mfu = 0.5;
  EXPECT_DOUBLE_EQ(predicted_metric(TrainingMetric::kTokensPerSPerGpu, r, 64), 1000);
  EXPECT_DOUBLE_EQ(predicted_metric(TrainingMetric::kHardwareTflopsPerGpu, r, 64), 3);
  EXPECT_DOUBLE_EQ(predicted_metric(TrainingMetric::kModelTflopsPerGpu, r, 64), 2);
  EXPECT_DOUBLE_EQ(predicted_metric(TrainingMetric::kMfu, r, 64), 0.5);
}

}  // namespace
}  // namespace ctwin::replay
