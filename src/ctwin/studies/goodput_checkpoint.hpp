#pragma once
// goodput's checkpoint from the scenario's "checkpoint" field (docs/goodput.md#the-scenarios-checkpoint):
// one checkpoint model for `run` and `goodput`. Each figure comes from the scenario unless its
// command-line option is given:
//   tier and mode         the scenario's, or --storage (a tier's own mode: asynchronous tiers of the file)
//   bytes per parameter   the scenario's (14 by default), or --no-fp32-master (10)
//   interval              every_steps × the step, or --checkpoint-interval
// The stall per save is `run`'s (replay/checkpoint_save.hpp): blocking = the save; async = the
// device→host copy + max(0, save − interval), plus the contention the write caused on `flow`.
// The restart reads the checkpoint back through the same tier's read path.

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "ctwin/analysis/checkpoint_model.hpp"
#include "ctwin/analysis/goodput_study.hpp"
#include "ctwin/replay/checkpoint_save.hpp"
#include "ctwin/replay/scenario.hpp"

namespace ctwin::api {

/// Where each of goodput's checkpoint figures came from: "scenario" or the option that set it.
struct GoodputCheckpointOrigin {
  std::string tier, mode, bytes_per_parameter, interval;
};

struct GoodputScenarioCheckpoint {
  analysis::CheckpointCost cost;       ///< what the study takes: blocking = stall + contention
  std::optional<double> interval_s;    ///< the scenario's every_steps × step; none when --checkpoint-interval set it
  std::optional<replay::CheckpointTiming> timing;  ///< `run`'s figures, when the scenario's tier is used
  GoodputCheckpointOrigin origin;
};

/// What overrides the scenario's checkpoint: the goodput options as given.
struct GoodputCheckpointOptions {
  std::optional<double> interval_s;       ///< --checkpoint-interval, rounded to whole steps
  std::optional<analysis::StorageTier> tier;  ///< --storage other than auto
  bool fp32_master = true;                ///< false: --no-fp32-master
};

/// goodput's checkpoint for `scenario` (which has a "checkpoint") with a step of `step_s`;
/// `simulated`: `run`'s timing of this scenario when the step was simulated (a save on the flow
/// fabric is taken from it), none to use the closed form.
[[nodiscard]] GoodputScenarioCheckpoint scenario_checkpoint(const replay::Scenario& scenario, long long job_nodes,
                                                            double step_s, const GoodputCheckpointOptions& options,
                                                            const std::optional<replay::CheckpointTiming>& simulated);

/// For `goodput` and `explain`: when `scenario` has a "checkpoint", sets `in`'s checkpoint cost and
/// (unless `in.interval_s` is given) its interval from it, and returns its figures; `tier`: the
/// tier an option named (not "auto"), none for the scenario's. `in.step_time_s` must be set.
[[nodiscard]] std::optional<GoodputScenarioCheckpoint> take_scenario_checkpoint(
    const replay::Scenario& scenario, long long job_nodes, const std::optional<analysis::StorageTier>& tier,
    bool fp32_master, const std::optional<replay::CheckpointTiming>& simulated, analysis::GoodputInputs& in);

/// The "checkpoint" object's additions: "from" (each figure's origin) and `run`'s save figures.
void add_checkpoint_origin_json(const GoodputScenarioCheckpoint& checkpoint, nlohmann::json& object);

}  // namespace ctwin::api
