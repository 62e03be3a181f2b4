#pragma once
// The last part of the range policy for a training step: whether a step can be simulated at
// all. Simulated time is int64 picoseconds (106 days); a step whose compute alone would take
// days per GPU is a mistyped sequence length or batch, and replaying it would overflow the
// clock deep inside the engine.

#include <string>

#include "ctwin/replay/scenario.hpp"

namespace ctwin::replay {

/// A step's compute per GPU at the GPU's fastest peak may take at most this long.
inline constexpr double kMaxStepComputeSeconds = 1e5;

/// Throws InputError (the scenario, /training/seq_len) when the step's hardware FLOPs per GPU
/// at the fastest peak of `s.gpu` take longer than kMaxStepComputeSeconds: a lower bound of
/// the step time, so the real time (at most a few times longer) stays far inside int64 ps.
void check_step_within_limits(const Scenario& s);

/// The same bound for the step with a GPU slowed to `share` of its speed or HBM bandwidth
/// (`term`, as `flag` gave it): InputError naming `flag` when the slowed stage's compute would
/// pass kMaxStepComputeSeconds (`gpu:3=0.001` on a step of a day at peak is three years).
void check_slowed_step_within_limits(const Scenario& s, double share, const std::string& term, const std::string& flag);

}  // namespace ctwin::replay
