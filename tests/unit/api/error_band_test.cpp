#include "ctwin/api/error_band.hpp"

#include <gtest/gtest.h>

#include "ctwin/plan/plan.hpp"

namespace ctwin::api {
namespace error_band_test {

analysis::ErrorBands symmetric_bands(double p10, double p90) {
  analysis::ErrorBandClass c;
  c.gpu_family = "all";
  c.network = "analytical";
  c.runs = 2;
  c.p10 = p10;
  c.p90 = p90;
  return {"synthetic", {c}};
}

PlanEntry entry_with(double tokens_per_s, double mfu) {
  PlanEntry e;
  e.analytical.tokens_per_s = tokens_per_s;
  e.analytical.mfu = mfu;
  return e;
}

// Bands of throughput x/(1+p90) .. x/(1+p10): with errors of ±10 %, x/1.1 .. x/0.9. Two candidates are
// distinguishable exactly when the slower one's top, x2/0.9, stays under the faster one's bottom, x1/1.1,
// that is x2/x1 < 0.9/1.1 = 0.8182.
TEST(ErrorBandPlan, CandidatesAreDistinguishableWhenTheirBandsMiss) {
  const analysis::ErrorBands bands = symmetric_bands(-0.1, 0.1);
  const analysis::ErrorBandKey key{false, false, "hopper", "analytical"};
  const PlanEntry best = entry_with(1000, 0.5);
  EXPECT_FALSE(distinguishable_from_best(entry_with(819, 0.1), best, PlanObjective::kThroughput, bands, key));
  EXPECT_TRUE(distinguishable_from_best(entry_with(817, 0.1), best, PlanObjective::kThroughput, bands, key));
  // The objective picks the figure: the same pair on MFU.
  EXPECT_FALSE(distinguishable_from_best(entry_with(100, 0.41), best, PlanObjective::kMfu, bands, key));
  EXPECT_TRUE(distinguishable_from_best(entry_with(100, 0.40), best, PlanObjective::kMfu, bands, key));
}

TEST(ErrorBandPlan, BandJsonHoldsTheIntervalsOfEveryFigure) {
  const analysis::ErrorBands bands = symmetric_bands(-0.2, 0.25);
  const analysis::ErrorBand band = analysis::band_for(bands, {false, false, "hopper", "flow"});
  replay::StepFigures figures;
  figures.step_time_s = 2.0;
  figures.tokens_per_s = 1000.0;
  figures.mfu = 0.5;
  figures.model_tflops_per_gpu = 400.0;
  const nlohmann::json j = error_band_json(band, figures);
  EXPECT_DOUBLE_EQ(j["step_time_s"]["p10"].get<double>(), 1.6);
  EXPECT_DOUBLE_EQ(j["step_time_s"]["p90"].get<double>(), 2.5);
  EXPECT_DOUBLE_EQ(j["tokens_per_s"]["p10"].get<double>(), 800.0);
  EXPECT_DOUBLE_EQ(j["tokens_per_s"]["p90"].get<double>(), 1250.0);
  EXPECT_DOUBLE_EQ(j["mfu"]["p10"].get<double>(), 0.4);
  EXPECT_DOUBLE_EQ(j["model_tflops_per_gpu"]["p90"].get<double>(), 500.0);
  EXPECT_EQ(j["class"]["network"], "flow");
  EXPECT_EQ(j["errors_from"]["network"], "analytical");
  EXPECT_EQ(j["errors_from"]["gpu_family"], "all");
  EXPECT_EQ(j["fallbacks"].size(), 2U);
}

TEST(ErrorBandPlan, TheBundledFileLoadsAndServesEveryBundledGpuFamily) {
  const analysis::ErrorBands bands = load_bundled_error_bands();
  for (const char* arch : {"ampere", "hopper", "blackwell", "ada", "cdna3"}) {
    for (const bool moe : {false, true}) {
      for (const bool calibrated : {false, true}) {
        const analysis::ErrorBand band = analysis::band_for(bands, {moe, calibrated, arch, "flow"});
        EXPECT_LT(band.from->p10, band.from->p90) << arch;
      }
    }
  }
}

}  // namespace error_band_test
}  // namespace ctwin::api
