#pragma once
// The last part of the range policy for a training step: whether a step can be simulated at
// all. Simulated time is int64 picoseconds (106 days); a step whose compute alone would take
// days per GPU is a mistyped sequence length or batch, and replaying it would overflow the
// clock deep inside the engine.

#include "ctwin/replay/scenario.hpp"

namespace ctwin::replay {

/// A step's compute per GPU at the GPU's fastest peak may take at most this long.
inline constexpr double kMaxStepComputeSeconds = 1e5;

/// Throws InputError (the scenario, /training/seq_len) when the step's hardware FLOPs per GPU
/// at the fastest peak of `s.gpu` take longer than kMaxStepComputeSeconds: a lower bound of
/// the step time, so the real time (at most a few times longer) stays far inside int64 ps.
void check_step_within_limits(const Scenario& s);

}  // namespace ctwin::replay
