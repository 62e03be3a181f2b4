#include "ctwin/studies/goodput_checkpoint.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "ctwin/core/error.hpp"

namespace ctwin::api {
namespace {

constexpr const char* kFromScenario = "scenario";

analysis::CheckpointCost cost_of_timing(const replay::CheckpointTiming& t, const replay::CheckpointSpec& spec) {
  analysis::CheckpointCost c;
  c.size = t.size;
  c.tier = "cluster:" + spec.tier;
  c.asynchronous = spec.mode == replay::CheckpointMode::kAsync;
  // The contention is time the steps beside the write lost: a cost of each save like the stall.
  c.blocking_s = t.stall_s + t.contention_s;
  c.persist_s = c.asynchronous ? t.save_s : 0;
  c.load_s = t.load_s;
  return c;
}

}  // namespace

GoodputScenarioCheckpoint scenario_checkpoint(const replay::Scenario& scenario, long long job_nodes, double step_s,
                                              const GoodputCheckpointOptions& options,
                                              const std::optional<replay::CheckpointTiming>& simulated) {
  CTWIN_ASSERT(scenario.checkpoint.has_value(), "a scenario with a checkpoint");
  const replay::CheckpointSpec& spec = *scenario.checkpoint;
  GoodputScenarioCheckpoint out;
  out.origin = {kFromScenario, kFromScenario, kFromScenario, kFromScenario};
  if (!options.fp32_master) out.origin.bytes_per_parameter = "--no-fp32-master";
  if (options.interval_s) {
    out.origin.interval = "--checkpoint-interval";
  } else {
    out.interval_s = static_cast<double>(spec.every_steps) * step_s;
  }
  const double bytes_per_parameter = options.fp32_master
                                         ? spec.bytes_per_parameter.value_or(replay::checkpoint_bytes_per_parameter(true))
                                         : replay::checkpoint_bytes_per_parameter(false);

  if (options.tier) {
    // Another tier: its own mode and its closed form, with the scenario's size.
    out.origin.tier = out.origin.mode = "--storage";
    out.cost = analysis::checkpoint_cost(replay::checkpoint_size(scenario, job_nodes, bytes_per_parameter), *options.tier,
                                         job_nodes);
    return out;
  }
  replay::CheckpointTiming timing;
  const bool scenario_size = options.fp32_master || spec.bytes_per_parameter == bytes_per_parameter;
  if (simulated && scenario_size && !options.interval_s) {
    timing = *simulated;  // `run`'s own figures, a save simulated on the flow fabric included
  } else {
    // The closed form at the interval goodput simulates (a given one changes an async save's wait).
    replay::Scenario changed = scenario;
    changed.checkpoint->bytes_per_parameter = bytes_per_parameter;
    const double interval_s = options.interval_s.value_or(static_cast<double>(spec.every_steps) * step_s);
    changed.checkpoint->every_steps = 1;
    timing = replay::time_checkpoint(changed, interval_s);
    timing.amortised_s = 0;  // per step of an interval: not a goodput figure
  }
  out.cost = cost_of_timing(timing, spec);
  out.timing = timing;
  return out;
}

std::optional<GoodputScenarioCheckpoint> take_scenario_checkpoint(
    const replay::Scenario& scenario, long long job_nodes, const std::optional<analysis::StorageTier>& tier,
    bool fp32_master, const std::optional<replay::CheckpointTiming>& simulated, analysis::GoodputInputs& in) {
  if (!scenario.checkpoint) return std::nullopt;
  GoodputCheckpointOptions options;
  if (in.interval_s) {
    // The study rounds a given interval up to whole steps; an async save waits against that one.
    options.interval_s = std::max(1.0, std::ceil(*in.interval_s / in.step_time_s - 1e-9)) * in.step_time_s;
  }
  options.tier = tier;
  options.fp32_master = fp32_master;
  GoodputScenarioCheckpoint c = scenario_checkpoint(scenario, job_nodes, in.step_time_s, options, simulated);
  in.checkpoint_cost = c.cost;
  if (c.interval_s) {
    in.interval_s = c.interval_s;
    // Named here: the Monte Carlo's own message would name --checkpoint-interval, which was not given.
    if (*c.interval_s < c.cost.blocking_s) {
      char text[160];
      std::snprintf(text, sizeof text, "%lld steps (%.3f s) are shorter than the stall a save (%.3f s): goodput needs more",
                    static_cast<long long>(scenario.checkpoint->every_steps), *c.interval_s, c.cost.blocking_s);
      throw InputError(scenario.source, "/checkpoint/every_steps", text);
    }
  }
  return c;
}

void add_checkpoint_origin_json(const GoodputScenarioCheckpoint& c, nlohmann::json& object) {
  object["from"] = {{"tier", c.origin.tier},
                    {"mode", c.origin.mode},
                    {"bytes_per_parameter", c.origin.bytes_per_parameter},
                    {"interval", c.origin.interval}};
  if (const auto& t = c.timing) {
    object["save_s"] = t->save_s;
    object["copy_s"] = t->copy_s;
    object["stall_s"] = t->stall_s;
    object["contention_s"] = t->contention_s;
    object["limit"] = t->limit;
  }
}

}  // namespace ctwin::api
