#pragma once
// The planner and sweep tests' base scenarios. The planner's: the default scenario with another model and sequence length,
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

/// The sweep tests' base scenario: the default one on the analytical network.
inline Scenario analytical_default_scenario() {
  return Scenario::load(std::string(CTWIN_SOURCE_DIR) + "/scenarios/default.json").with("network", "analytical");
}

/// The default scenario with its DP gradient reduction after the backward, not overlapped with
/// it: the DP traffic (rail-aligned rings over 4 nodes per stage) is on the step's critical path.
inline Scenario exposed_dp_scenario() {
  return Scenario::load(std::string(CTWIN_SOURCE_DIR) + "/scenarios/default.json")
      .with("overlap.dp_grad_reduce", false)
      .with("overlap.dp_param_gather", false);
}

}  // namespace ctwin::api
