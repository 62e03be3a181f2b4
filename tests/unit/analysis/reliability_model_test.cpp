// The reliability model: strict reading with units, counts from the built fabric (a bigger build
// fails more often by construction), and the bundled rates against their fit.

#include "ctwin/analysis/reliability_model.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <string>

#include "ctwin/analysis/reliability_validation.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/core/rate_parse.hpp"
#include "ctwin/core/unit_parse.hpp"
#include "ctwin/fabric/fabric.hpp"
#include "ctwin/fabric/summary.hpp"
#include "source_root.hpp"

namespace ctwin::analysis {
namespace {

nlohmann::json one_component(const nlohmann::json& component) {
  return {{"name", "t"}, {"detection", "5min"}, {"launch", "10min"}, {"components", nlohmann::json::array({component})}};
}

nlohmann::json gpu_component() {
  return {{"name", "gpu"}, {"group", "gpu"}, {"per", "gpu"}, {"rate", "2e-5/h"}, {"takes", "node"}, {"repair", "3d"},
          {"source", "test"}};
}

ComponentCounts counts_of(const std::string& topology, int gpus) {
  const fabric::ClusterSpec spec = fabric::load_cluster(kRoot + "/topologies/" + topology + ".json");
  const fabric::Fabric built(spec, gpus);
  return count_components(fabric::summarize(built), spec);
}

TEST(RateParse, UnitsOfRatesAndDurations) {
  EXPECT_DOUBLE_EQ(parse_rate_per_hour("1.5e-5/h"), 1.5e-5);
  EXPECT_DOUBLE_EQ(parse_rate_per_hour("0.24/day"), 0.01);
  EXPECT_DOUBLE_EQ(parse_rate_per_hour("8.766/year"), 1e-3);
  EXPECT_DOUBLE_EQ(parse_rate_per_hour("500FIT"), 5e-7);
  EXPECT_DOUBLE_EQ(parse_hours("90min"), 1.5);
  EXPECT_DOUBLE_EQ(parse_hours("2d"), 48);
  EXPECT_DOUBLE_EQ(parse_hours("30s"), 30.0 / 3600);
  EXPECT_THROW((void)parse_rate_per_hour("1.5e-5"), UnitError);
  EXPECT_THROW((void)parse_rate_per_hour("2/fortnight"), UnitError);
  EXPECT_THROW((void)parse_hours("-5min"), UnitError);
  EXPECT_THROW((void)parse_hours("5"), UnitError);
}

TEST(ReliabilityModel, ReadsRateOrMtbf) {
  nlohmann::json doc = one_component(gpu_component());
  EXPECT_DOUBLE_EQ(parse_reliability_model(doc, "m.json").components[0].rate_per_hour, 2e-5);
  doc["components"][0].erase("rate");
  doc["components"][0]["mtbf"] = "50000h";
  EXPECT_DOUBLE_EQ(parse_reliability_model(doc, "m.json").components[0].rate_per_hour, 2e-5);
}

TEST(ReliabilityModel, RejectsBadFieldsNamingThem) {
  const auto message = [](const nlohmann::json& doc) {
    try {
      (void)parse_reliability_model(doc, "m.json");
    } catch (const InputError& e) {
      return e.pointer() + ": " + e.message();
    }
    return std::string("no error");
  };
  nlohmann::json unitless = one_component(gpu_component());
  unitless["components"][0]["rate"] = "2e-5";
  EXPECT_NE(message(unitless).find("/components/0/rate"), std::string::npos) << message(unitless);
  nlohmann::json negative = one_component(gpu_component());
  negative["components"][0]["repair"] = "-3d";
  EXPECT_NE(message(negative).find("/components/0/repair"), std::string::npos) << message(negative);
  nlohmann::json both = one_component(gpu_component());
  both["components"][0]["mtbf"] = "1000h";
  EXPECT_NE(message(both).find("/components/0/rate"), std::string::npos);
  nlohmann::json unknown = one_component(gpu_component());
  unknown["components"][0]["colour"] = "red";
  EXPECT_NE(message(unknown).find("colour"), std::string::npos);
  nlohmann::json absurd = one_component(gpu_component());
  absurd["components"][0]["rate"] = "2/h";
  EXPECT_NE(message(absurd).find("/components/0/rate"), std::string::npos) << message(absurd);
  nlohmann::json bad_detection = one_component(gpu_component());
  bad_detection["detection"] = "soon";
  EXPECT_NE(message(bad_detection).find("/detection"), std::string::npos);
}

TEST(ReliabilityModel, CountsComeFromTheBuild) {
  const ComponentCounts small = counts_of("dgx-h100-superpod", 1024);
  const ComponentCounts big = counts_of("dgx-h100-superpod", 16384);
  EXPECT_EQ(small.gpus, 1024);
  EXPECT_EQ(small.nodes, 128);
  EXPECT_EQ(small.nics, 1024);
  EXPECT_EQ(small.cpus, 256);
  EXPECT_EQ(small.leaf_switches, 32);  // README: 1024 GPUs, 4 SUs of 8 rails
  EXPECT_EQ(small.spine_switches, 16);
  EXPECT_EQ(small.access_cables, 1024);
  EXPECT_EQ(small.nodes_per_leaf, 32);
  EXPECT_EQ(big.nodes, 2048);
  EXPECT_GT(big.core_switches, 0);
  EXPECT_GT(big.fabric_cables, 16 * small.fabric_cables / 2);
  const ReliabilityModel model = load_reliability_model(kRoot + "/models/reliability/gpu-cluster.json");
  const double small_rate = total_rate_per_hour(failure_sources(model, small));
  const double big_rate = total_rate_per_hour(failure_sources(model, big));
  // Per-unit rates times counts: 16 times the GPUs fail at least 15 times as often.
  EXPECT_GT(big_rate, 15 * small_rate);
  double sum = 0;
  for (const auto& s : failure_sources(model, big)) {
    EXPECT_DOUBLE_EQ(s.rate_per_hour, s.component->rate_per_hour * static_cast<double>(big.of(s.component->per)));
    sum += s.rate_per_hour;
  }
  EXPECT_DOUBLE_EQ(sum, big_rate);
}

TEST(ReliabilityModel, BundledGpuRateIsTheFitOfTheFitCases) {
  const ReliabilityModel model = load_reliability_model(kRoot + "/models/reliability/gpu-cluster.json");
  const auto cases = load_reliability_cases(kRoot + "/validation/reliability/cases.json");
  const double fitted = fit_gpu_rate(cases);
  double gpu_rate = 0;
  for (const auto& c : model.components) {
    if (c.name == "gpu") gpu_rate = c.rate_per_hour;
    // Every class says where its rate comes from; only the fitted one is not an assumption.
    EXPECT_FALSE(c.source.empty()) << c.name;
    EXPECT_EQ(c.assumed, c.name != "gpu") << c.name;
  }
  EXPECT_NEAR(gpu_rate / fitted, 1, 0.005) << "file " << gpu_rate << ", fit " << fitted;
  for (const auto& c : cases) {
    if (c.name.rfind("llama3", 0) == 0) {
      EXPECT_FALSE(c.fit) << c.name << " is kept for independent validation";
    }
  }
}

TEST(ReliabilityModel, FitCasesAreReproducedOnAverage) {
  // The fitted GPU rate reproduces the pooled fit cases' failures exactly (maximum likelihood of a
  // Poisson rate), case by case within their spread.
  const ReliabilityModel model = load_reliability_model(kRoot + "/models/reliability/gpu-cluster.json");
  const auto cases = load_reliability_cases(kRoot + "/validation/reliability/cases.json");
  double measured = 0, predicted = 0;
  for (const auto& p : predict_cases(model, cases, kRoot)) {
    if (!p.c.fit) continue;
    measured += p.c.count;
    predicted += p.predicted;
    EXPECT_LT(std::abs(p.predicted - p.c.count), 3 * std::sqrt(p.c.count) + 1) << p.c.name;
  }
  EXPECT_NEAR(predicted / measured, 1, 0.01);
}

}  // namespace
}  // namespace ctwin::analysis
