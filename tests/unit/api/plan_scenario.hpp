#pragma once
// The planner tests' base scenario: the default scenario with another model and sequence length,
// on the analytical network so that a whole plan space replays in seconds.

#include <cstdint>
#include <string>

#include "ctwin/api/scenario.hpp"

namespace ctwin::api {

inline Scenario plan_test_scenario(const std::string& model, std::int64_t seq_len) {
  return Scenario::load(std::string(CTWIN_SOURCE_DIR) + "/scenarios/default.json")
      .with("model", "models/llm/" + model + ".json")
      .with("training.seq_len", seq_len)
      .with("network", "analytical");
}

}  // namespace ctwin::api
