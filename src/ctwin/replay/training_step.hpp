#pragma once
// One training step of a scenario, end to end: collective times, operation graph, pipeline
// order, replay and report.

#include "ctwin/replay/replay.hpp"
#include "ctwin/replay/scenario.hpp"
#include "ctwin/replay/step_report.hpp"

namespace ctwin::replay {

struct StepOptions {
  bool free_communication = false;  ///< every collective and send takes no time (oracle tests)
};

struct SimulatedStep {
  StepWork work;
  ReplayResult replay;
  StepReport report;
};

/// InputError for what the slice does not model (see build_step_work).
[[nodiscard]] SimulatedStep simulate_step(const Scenario& scenario, const StepOptions& options = {});

}  // namespace ctwin::replay
