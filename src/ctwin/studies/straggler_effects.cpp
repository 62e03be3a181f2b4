#include "ctwin/studies/straggler_effects.hpp"

#include <algorithm>
#include <charconv>
#include <string>
#include <utility>

#include "ctwin/api/evaluate.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/core/limits.hpp"

namespace ctwin::api {

StragglerEffects::StragglerEffects(Scenario scenario, EvalContext& context, double speed)
    : scenario_(std::move(scenario)), context_(context), speed_(speed) {
  if (const auto problem = limits::degraded_share_problem(speed)) throw InputError("--straggler-speed", "", *problem);
  const StepResult healthy = evaluate(scenario_, context_);
  healthy_s_ = healthy.step.report.step_time_s;
  stage_gpus_ = healthy.step.work.stage_gpus;
}

double StragglerEffects::effect(std::int64_t gpu) {
  const std::int64_t stage = gpu / stage_gpus_;
  if (const auto it = effects_.find(stage); it != effects_.end()) return it->second.effect;
  StragglerEffect e;
  e.stage = stage;
  e.gpu = stage * stage_gpus_;
  StepQuery query;
  // The shortest form that reads back as the same double: the term carries exactly the speed given.
  char speed[32];
  const auto written = std::to_chars(speed, speed + sizeof speed, speed_);
  query.degrade = {"gpu:" + std::to_string(e.gpu) + "=" + std::string(speed, written.ptr)};
  query.degrade_origin = "--straggler-speed";
  e.step_time_s = evaluate(scenario_, context_, query).step.report.step_time_s;
  // A slow GPU cannot speed the step up; guard the ratio against rounding of equal times.
  e.effect = std::max(1.0, e.step_time_s / healthy_s_);
  return (effects_[stage] = e).effect;
}

}  // namespace ctwin::api
