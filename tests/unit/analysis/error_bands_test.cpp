#include "ctwin/analysis/error_bands.hpp"

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "ctwin/core/error.hpp"

namespace ctwin::analysis {
namespace error_bands_test {

nlohmann::json one_class(const std::string& family, const std::vector<double>& errors, const std::string& model = "dense") {
  nlohmann::json list = nlohmann::json::array();
  for (std::size_t i = 0; i < errors.size(); ++i) {
    list.push_back({{"run", "run-" + std::to_string(i)}, {"how", "synthetic"}, {"error", errors[i]}});
  }
  return {{"model", model},
          {"calibrated", false},
          {"gpu_family", family},
          {"network", "analytical"},
          {"runs", static_cast<int>(errors.size())},
          {"p10", quantile(errors, 0.1)},
          {"p90", quantile(errors, 0.9)},
          {"errors", list}};
}

nlohmann::json document(const nlohmann::json& classes) {
  return {{"description", "test"}, {"quantile", "linear between order statistics (type 7)"}, {"classes", classes}};
}

TEST(ErrorBands, QuantileIsLinearBetweenOrderStatistics) {
  // numpy.quantile([1, 2, 3, 4, 5], q): 1.4 at 0.1, 3 at 0.5, 4.6 at 0.9; the order given does not matter.
  EXPECT_DOUBLE_EQ(quantile({5, 1, 4, 2, 3}, 0.1), 1.4);
  EXPECT_DOUBLE_EQ(quantile({5, 1, 4, 2, 3}, 0.5), 3.0);
  EXPECT_DOUBLE_EQ(quantile({5, 1, 4, 2, 3}, 0.9), 4.6);
  EXPECT_DOUBLE_EQ(quantile({7}, 0.1), 7.0);
  EXPECT_DOUBLE_EQ(quantile({0, 10}, 1.0), 10.0);
  EXPECT_THROW((void)quantile({}, 0.5), InternalError);
}

TEST(ErrorBands, IntervalsOfMeasuredFiguresFollowTheErrorDefinition) {
  ErrorBandClass c;
  c.p10 = -0.2;  // predicted 20 % under the measured throughput
  c.p90 = 0.25;  // predicted 25 % over
  const Interval tps = throughput_interval(1000, c);
  EXPECT_DOUBLE_EQ(tps.low, 800);   // 1000 / 1.25
  EXPECT_DOUBLE_EQ(tps.high, 1250); // 1000 / 0.8
  const Interval step = time_interval(2, c);
  EXPECT_DOUBLE_EQ(step.low, 1.6);
  EXPECT_DOUBLE_EQ(step.high, 2.5);
  // Tokens per step are what they are: the slow end of the time is the low end of the rate.
  EXPECT_DOUBLE_EQ(step.high * tps.low, 2 * 1000);
  EXPECT_DOUBLE_EQ(step.low * tps.high, 2 * 1000);
}

TEST(ErrorBands, ParsesAndPicksTheClassOrSaysWhyNot) {
  const std::vector<double> errs{-0.3, -0.1, 0.0, 0.1, 0.2, 0.3, 0.4, 0.5};
  const ErrorBands bands = parse_error_bands(
      document({one_class("hopper", errs), one_class("all", errs), one_class("all", {0.5, 0.6}, "moe")}), "bands.json");
  ASSERT_EQ(bands.classes.size(), 3U);

  const ErrorBand hopper = band_for(bands, {false, false, "hopper", "analytical"});
  EXPECT_EQ(hopper.from, &bands.classes[0]);
  EXPECT_TRUE(hopper.fallbacks.empty());

  const ErrorBand ada = band_for(bands, {false, false, "ada", "analytical"});
  EXPECT_EQ(ada.from, &bands.classes[1]);
  ASSERT_EQ(ada.fallbacks.size(), 1U);
  EXPECT_NE(ada.fallbacks[0].find("ada"), std::string::npos);

  const ErrorBand flow = band_for(bands, {false, false, "hopper", "flow"});
  EXPECT_EQ(flow.from, &bands.classes[0]);
  ASSERT_EQ(flow.fallbacks.size(), 1U);
  EXPECT_NE(flow.fallbacks[0].find("flow"), std::string::npos);

  const ErrorBand moe = band_for(bands, {true, false, "hopper", "analytical"});
  EXPECT_EQ(moe.from, &bands.classes[2]);
  EXPECT_THROW((void)band_for(bands, {true, true, "hopper", "analytical"}), InternalError);
}

TEST(ErrorBands, BadFilesNameTheField) {
  const std::vector<double> errs{-0.1, 0.0, 0.1};
  const auto rejected = [](nlohmann::json doc, const std::string& pointer) {
    try {
      (void)parse_error_bands(doc, "bands.json");
    } catch (const InputError& e) {
      EXPECT_EQ(e.source(), "bands.json");
      EXPECT_EQ(e.pointer(), pointer) << e.what();
      return;
    }
    ADD_FAILURE() << "accepted: " << doc.dump();
  };
  nlohmann::json c = one_class("all", errs);
  c["p10"] = -0.5;  // not the errors' p10
  rejected(document(nlohmann::json::array({c})), "/classes/0/p10");
  c = one_class("all", errs);
  c["runs"] = 4;
  rejected(document(nlohmann::json::array({c})), "/classes/0/runs");
  c = one_class("all", errs);
  c["width"] = 1;
  rejected(document(nlohmann::json::array({c})), "/classes/0/width");
  c = one_class("all", errs);
  c["errors"][1]["error"] = -1.0;  // a measured throughput of infinity
  rejected(document(nlohmann::json::array({c})), "/classes/0/errors/1/error");
  c = one_class("all", errs);
  c["network"] = "ns3";
  rejected(document(nlohmann::json::array({c})), "/classes/0/network");
  rejected(document(nlohmann::json::array()), "/classes");
}

// The bundled bands against the runs they came from, as band_for serves them (a family's own class
// where the file has one). Each held-out error is checked against a band built without its run (all
// of that run's errors left out), so the coverage is not in-sample.
TEST(ErrorBands, BundledBandsCoverHeldOutRunsAtTheirNominalRate) {
  const ErrorBands bands = load_error_bands(std::filesystem::path(CTWIN_SOURCE_DIR) / "models" / "error_bands.json");
  int inside = 0, total = 0;
  std::set<std::string> kinds;
  for (const auto& pooled : bands.classes) {
    if (pooled.gpu_family != "all") continue;
    kinds.insert(std::string(pooled.moe ? "moe" : "dense") + (pooled.calibrated ? "+cal" : ""));
    for (std::size_t i = 0; i < pooled.errors.size(); ++i) {
      const std::string& run = pooled.error_runs[i];
      const ErrorBandClass* served = &pooled;
      for (const auto& c : bands.classes) {
        const bool same = c.moe == pooled.moe && c.calibrated == pooled.calibrated && c.network == pooled.network;
        if (same && c.gpu_family != "all" && std::count(c.error_runs.begin(), c.error_runs.end(), run) > 0) served = &c;
      }
      std::vector<double> others;
      for (std::size_t j = 0; j < served->errors.size(); ++j) {
        if (served->error_runs[j] != run) others.push_back(served->errors[j]);
      }
      ASSERT_GE(others.size(), 10U) << run;
      inside += pooled.errors[i] >= quantile(others, 0.1) && pooled.errors[i] <= quantile(others, 0.9);
      ++total;
    }
  }
  EXPECT_EQ(kinds.size(), 4U) << "dense and MoE, calibrated or not, each need a class over all GPU families";
  const double coverage = static_cast<double>(inside) / total;
  EXPECT_GE(coverage, 0.70) << inside << " of " << total;
  EXPECT_LE(coverage, 0.90) << inside << " of " << total;
}

}  // namespace error_bands_test
}  // namespace ctwin::analysis
