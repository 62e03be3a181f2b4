#pragma once
// `ctwin run --degrade` terms, in the one syntax of fabric/degradation.hpp: a GPU's speed and its
// HBM bandwidth change the step's kernels (replay/degrade.hpp); a NIC, a cable or a leaf's uplinks
// change the build the step's traffic shares (the shared flow fabric). An isolated step (each
// collective its predicted time alone, as the analytical network gives) has no fabric for those
// to slow, so they are refused there rather than silently ignored.

#include <memory>
#include <string>
#include <vector>

#include "ctwin/api/eval_context.hpp"
#include "ctwin/replay/training_step.hpp"

namespace ctwin::api {

/// Applies `terms` to `options` of a step of `scenario` (options.fabric set when the step is
/// shared). InputError naming `origin` for a bad term, or for a fabric part on an isolated step.
void apply_step_degradation(const replay::Scenario& scenario, const std::vector<std::string>& terms,
                            const std::string& origin, replay::StepOptions& options);

}  // namespace ctwin::api
