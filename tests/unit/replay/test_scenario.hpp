#pragma once
// The replay tests' starting points: the bundled default scenario with overrides, and
// microseconds as simulated time.

#include <string>
#include <vector>

#include "ctwin/core/units.hpp"
#include "ctwin/replay/scenario.hpp"

namespace ctwin::replay {

inline Scenario scenario(const std::vector<std::string>& overrides) {
  return load_scenario(std::string(CTWIN_SOURCE_DIR) + "/scenarios/default.json", CTWIN_SOURCE_DIR, overrides);
}

inline SimTime us(double v) { return SimTime::from_seconds(v * 1e-6); }

}  // namespace ctwin::replay
