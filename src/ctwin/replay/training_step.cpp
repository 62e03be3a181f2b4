#include "ctwin/replay/training_step.hpp"

#include "ctwin/replay/comm_groups.hpp"
#include "ctwin/replay/schedule.hpp"

namespace ctwin::replay {

SimulatedStep simulate_step(const Scenario& scenario, const StepOptions& options) {
  CollectiveTimes comm(scenario.cluster, scenario.network, options.free_communication);
  SimulatedStep step;
  step.work = build_step_work(scenario, comm);
  const auto order = pipeline_order(scenario.split.schedule, static_cast<int>(scenario.split.pp),
                                    static_cast<int>(scenario.split.vpp), static_cast<int>(step.work.micro_batches));
  step.replay = replay_step(step.work, order, scenario.overlap.pp_p2p);
  step.report = make_step_report(scenario, step.replay);
  return step;
}

}  // namespace ctwin::replay
