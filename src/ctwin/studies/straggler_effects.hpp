#pragma once
// What a throttled GPU costs a synchronous step, for `goodput`'s straggler events: the twin's
// step with `gpu:RANK=SPEED` (replay/degrade.hpp) over the healthy step. A slow GPU gates its
// whole pipeline stage, so the effect depends only on the stage: simulated once per stage an
// event lands on, at the first GPU of that stage.

#include <cstdint>
#include <map>

#include "ctwin/api/eval_context.hpp"
#include "ctwin/api/scenario.hpp"

namespace ctwin::api {

struct StragglerEffect {
  std::int64_t stage = 0;
  std::int64_t gpu = 0;  ///< the GPU simulated slow
  double step_time_s = 0;
  double effect = 1;     ///< step_time_s over the healthy step's
};

class StragglerEffects {
 public:
  /// GPUs of `scenario` throttled to `speed` of their nominal speed, in (0, 1].
  StragglerEffects(Scenario scenario, EvalContext& context, double speed);

  /// The step's slowdown (≥ 1) with `gpu` throttled; simulated on first use of its stage.
  [[nodiscard]] double effect(std::int64_t gpu);
  [[nodiscard]] double healthy_step_time_s() const { return healthy_s_; }
  /// Every stage simulated so far.
  [[nodiscard]] const std::map<std::int64_t, StragglerEffect>& effects() const { return effects_; }

 private:
  Scenario scenario_;
  EvalContext& context_;
  double speed_;
  std::int64_t stage_gpus_ = 1;
  double healthy_s_ = 0;
  std::map<std::int64_t, StragglerEffect> effects_;
};

}  // namespace ctwin::api
