// Parameter counts against published totals (model cards, papers) and against the closed form of
// Narayanan et al. SC'21 for the GPT rows of their Table 1 (transcribed in
// validation/training/training_runs.json).

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "ctwin/workload/parameter_count.hpp"
#include "test_models.hpp"
#include "training_runs.hpp"

namespace {

using ctwin::workload::count_parameters;
using ctwin::workload::testing::bundled;
using ctwin::workload::testing::megatron_table_one;

struct Published {
  const char* file;
  double total_b;
  double active_b;  // 0: dense, active = total
  const char* source;
};

// Published totals. Tolerance 1%: several are rounded in their sources.
const Published kPublished[] = {
    {"gpt3-175b", 174.6, 0, "SC'21 eq. for params with V 50257 (Brown et al. Table 2.1 rounds to 175.0B)"},
    {"gpt3-177b-megatron", 177, 0, "Megatron-LM README @ d98e8a64dd, model table: 177B (whole billions)"},
    {"llama2-7b", 6.74, 0, "Llama 2 HF model card / safetensors index: 6.74B"},
    {"llama2-70b", 68.98, 0, "Llama 2 70B safetensors index: 68.98B"},
    {"llama3-8b", 8.03, 0, "Llama 3.1 model card: 8.03B"},
    {"llama3-70b", 70.6, 0, "Llama 3.1 model card: 70.6B"},
    {"llama3-405b", 405.9, 0, "Llama 3.1 405B: 405.85B in its safetensors index, '405B' in the card"},
    {"mixtral-8x7b", 46.7, 12.9, "Mistral AI, Mixtral of experts announcement: 46.7B total, 12.9B per token"},
    // ctwin counts 37.55B active with both embedding tables; the report says "37B" without saying
    // what it includes (36.6B without the input embedding, which does no arithmetic).
    {"deepseek-v3", 671, 37, "DeepSeek-V3 report §4.2: 671B total, 37B activated (without MTP)"},
    {"qwen3-moe", 235, 22, "Qwen3 report Table 2: 235B total, 22B activated"},
};

TEST(ParameterCount, MatchesPublishedTotalsWithinOnePercent) {
  for (const auto& p : kPublished) {
    const auto count = count_parameters(bundled(p.file));
    const double total = static_cast<double>(count.total) * 1e-9;
    const double active = static_cast<double>(count.active) * 1e-9;
    EXPECT_NEAR(total / p.total_b, 1.0, 0.01) << p.file << ": " << total << "B vs " << p.total_b << "B (" << p.source << ")";
    const double want_active = p.active_b > 0 ? p.active_b : p.total_b;
    // 37B and 22B are whole billions in their reports: 2% for those, 1% otherwise.
    const double tolerance = (p.active_b >= 20 ? 0.02 : 0.01) * want_active;
    EXPECT_NEAR(active, want_active, tolerance) << p.file << " active";
    if (p.active_b == 0) {
      EXPECT_EQ(count.active, count.total) << p.file;
    }
  }
}

TEST(ParameterCount, Llama3EightBIsExact) {
  // By hand: 32·(2·4096² + 2·4096·1024 + 3·4096·14336 + 2·4096) + 2·128256·4096 + 4096
  // = 8,030,261,248, the 8.03B of the model card.
  EXPECT_EQ(count_parameters(bundled("llama3-8b")).total, 8030261248);
}

TEST(ParameterCount, MegatronTableOneRowsFollowTheirClosedForm) {
  int rows = 0;
  for (const auto& [run, model] : megatron_table_one()) {
    const auto& m = run.at("model");
    const double l = static_cast<double>(model.layers);
    const double h = static_cast<double>(model.hidden);
    const double V = static_cast<double>(model.vocab);
    const double s = static_cast<double>(model.max_positions);
    // SC'21 §5.1: P = 12lh²(1 + 13/(12h) + (V + s)/(12lh)); it leaves out the final LayerNorm (2h).
    const double closed_form = 12 * l * h * h * (1 + 13 / (12 * h) + (V + s) / (12 * l * h));
    const auto count = count_parameters(model);
    EXPECT_DOUBLE_EQ(static_cast<double>(count.total - count.final_norm), closed_form) << run.at("id");
    // The table prints billions with one decimal.
    EXPECT_NEAR(static_cast<double>(count.total) * 1e-9, m.at("params_b").get<double>(), 0.051) << run.at("id");
    ++rows;
  }
  EXPECT_EQ(rows, 10);
}

TEST(ParameterCount, MoeSplitsExpertAndSharedParts) {
  const auto model = bundled("deepseek-v3");
  const auto count = count_parameters(model);
  EXPECT_EQ(count.total, count.non_expert + count.expert_total);
  // 58 MoE layers × 257 experts × 3·7168·2048.
  EXPECT_EQ(count.expert_total, 58LL * 257 * 3 * 7168 * 2048);
}

}  // namespace
