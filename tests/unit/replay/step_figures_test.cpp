// The step's figures (replay/step_figures.hpp): one name per figure, a writer and a reader that
// give each other back every set exactly, and a reader that refuses what no run reports.

#include "ctwin/replay/step_figures.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "ctwin/core/error.hpp"

namespace ctwin::replay {
namespace {

std::vector<Figure> every_figure() {
  std::vector<Figure> all;
  for (int i = 0; i < kFigureCount; ++i) all.push_back(static_cast<Figure>(i));
  return all;
}

// Distinct values, none the default, all within what a run reports (binary fractions: exact in
// JSON text and back).
StepFigures sample() {
  StepFigures f;
  f.dp = 16;
  f.micro_batches = 8;
  f.step_time_s = 2.5;
  f.tokens_per_s = 419430.25;
  f.tokens_per_s_per_gpu = 3276.75;
  f.model_tflops_per_gpu = 401.5;
  f.hardware_tflops_per_gpu = 512.125;
  f.mfu = 0.40625;
  f.comm_ratio = 0.125;
  f.exposed_comm_s = 0.3125;
  f.bubble_s = 0.25;
  f.exposed_io_s = 0.0625;
  f.memory_gib_per_gpu = 61.75;
  f.fits_memory = true;
  return f;
}

TEST(StepFigures, EveryFigureHasItsOwnName) {
  std::set<std::string> names;
  for (const Figure f : every_figure()) names.insert(figure_name(f));
  EXPECT_EQ(names.size(), static_cast<std::size_t>(kFigureCount));
  EXPECT_STREQ(figure_name(Figure::kStepTime), "step_time_s");
  EXPECT_STREQ(figure_name(Figure::kMemoryTotal), "memory_gib_per_gpu");
}

TEST(StepFigures, WritesExactlyTheSetAndReadsItBack) {
  const StepFigures f = sample();
  const FigureSet all{Figure::kDp,        Figure::kMicroBatches,      Figure::kStepTime,
                      Figure::kTokensPerS, Figure::kTokensPerSPerGpu, Figure::kModelTflopsPerGpu,
                      Figure::kHardwareTflopsPerGpu, Figure::kMfu,    Figure::kCommRatio,
                      Figure::kExposedComm, Figure::kBubble,          Figure::kExposedIo,
                      Figure::kMemoryTotal, Figure::kFitsMemory};
  const nlohmann::json whole = to_json(f, all);
  EXPECT_EQ(whole.size(), static_cast<std::size_t>(kFigureCount));
  // Through text, as a shard travels.
  const StepFigures back = figures_from_json(nlohmann::json::parse(whole.dump()), all, "s.json", "/p", "a shard");
  EXPECT_EQ(to_json(back, all).dump(), whole.dump());
  EXPECT_EQ(whole["dp"].get<std::int64_t>(), 16);
  EXPECT_TRUE(whole["dp"].is_number_integer());
  EXPECT_TRUE(whole["fits_memory"].is_boolean());
  EXPECT_DOUBLE_EQ(whole["exposed_comm_s"].get<double>(), 0.3125);

  // One figure alone: that key only, and the others stay 0 when read back.
  for (const Figure one : every_figure()) {
    const nlohmann::json j = to_json(f, {one});
    ASSERT_EQ(j.size(), 1U) << figure_name(one);
    EXPECT_TRUE(j.contains(figure_name(one)));
  }
  const StepFigures step_only = figures_from_json(whole, {Figure::kStepTime}, "s.json", "", "a shard");
  EXPECT_EQ(step_only.step_time_s, 2.5);
  EXPECT_EQ(step_only.mfu, 0);
  EXPECT_EQ(step_only.dp, 0);
}

TEST(StepFigures, ReaderNamesTheMissingWrongOrImpossibleFigure) {
  const FigureSet set{Figure::kDp, Figure::kStepTime, Figure::kMfu, Figure::kBubble, Figure::kFitsMemory};
  const nlohmann::json good = to_json(sample(), set);
  ASSERT_NO_THROW((void)figures_from_json(good, set, "b.json", "/points/3", "a shard of x"));
  const auto refused = [&](const char* key, const nlohmann::json& value, const std::string& pointer) {
    nlohmann::json edited = good;
    if (value.is_null()) {
      edited.erase(key);
    } else {
      edited[key] = value;
    }
    try {
      (void)figures_from_json(edited, set, "b.json", "/points/3", "a shard of x");
      ADD_FAILURE() << key << "=" << value.dump() << " was read";
    } catch (const InputError& e) {
      EXPECT_EQ(e.source(), "b.json");
      EXPECT_EQ(e.pointer(), pointer) << e.what();
    }
  };
  refused("mfu", nullptr, "/points/3");  // missing: "not a shard of x (no 'mfu')"
  refused("step_time_s", "2.5 s", "/points/3/step_time_s");
  refused("fits_memory", 1, "/points/3/fits_memory");
  refused("step_time_s", -5.0, "/points/3/step_time_s");
  refused("step_time_s", 0.0, "/points/3/step_time_s");
  refused("mfu", 7.5, "/points/3/mfu");
  refused("dp", 0, "/points/3/dp");
  refused("bubble_s", 3.0, "/points/3/bubble_s");  // longer than the 2.5 s step
  EXPECT_THROW((void)figures_from_json(nlohmann::json::array(), set, "b.json", "", "a shard of x"), InputError);
}

TEST(StepFigures, FiguresOfAReportCarryItsHeadlineAndTotals) {
  StepReport r;
  r.dp = 4;
  r.micro_batches = 2;
  r.step_time_s = 3;
  r.tokens_per_s = 1000;
  r.mfu = 0.5;
  r.comm_ratio = 0.25;
  r.breakdown.exposed_comm_s = {0.125, 0.25, 0.375, 0, 0};
  r.breakdown.bubble_s = 0.5;
  r.memory_gib_per_gpu.total = 70;
  r.fits_memory = true;
  const StepFigures f = figures_of(r);
  EXPECT_EQ(f.exposed_comm_s, 0.75);  // every kind, summed
  EXPECT_EQ(f.memory_gib_per_gpu, 70);
  EXPECT_EQ(f.bubble_s, 0.5);
  EXPECT_EQ(f.dp, 4);
  EXPECT_EQ(f.tokens_per_s_per_gpu, 0);  // the report does not know its GPU count
}

}  // namespace
}  // namespace ctwin::replay
