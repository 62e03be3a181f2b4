#pragma once
// Published training runs (validation/training/training_runs.json, a copy of the shared transcription).

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "test_models.hpp"

namespace ctwin::workload::testing {

inline const nlohmann::json& training_runs() {
  static const nlohmann::json runs = [] {
    std::ifstream in(std::string(CTWIN_SOURCE_DIR) + "/validation/training/training_runs.json");
    // A missing copy must fail the tests that need it, not skip their checks.
    if (!in) throw std::runtime_error("validation/training/training_runs.json is missing");
    return nlohmann::json::parse(in).at("runs");
  }();
  return runs;
}

inline const nlohmann::json& training_run(const std::string& id) {
  for (const auto& run : training_runs()) {
    if (run.at("id") == id) return run;
  }
  static const nlohmann::json missing;
  ADD_FAILURE() << "no run " << id << " in training_runs.json";
  return missing;
}

/// The ten GPT rows of Megatron-LM SC'21 Table 1, each with its model built by megatron_gpt.
inline std::vector<std::pair<nlohmann::json, ModelSpec>> megatron_table_one() {
  std::vector<std::pair<nlohmann::json, ModelSpec>> rows;
  for (const auto& run : training_runs()) {
    if (run.at("group") != "Megatron-LM SC21 weak scaling (Table 1)") continue;
    const auto& m = run.at("model");
    rows.emplace_back(run, megatron_gpt(m.at("layers"), m.at("hidden"), m.at("heads"), m.at("vocab"), m.at("seq_len")));
  }
  return rows;
}

}  // namespace ctwin::workload::testing
