#pragma once
// The replay's part of the public boundary (docs/architecture.md, "The public boundary"): the
// resolved scenario, a step's result and report, flow sampling, heterogeneous pools, and the
// layer and training-run comparisons and fits that `validate` and `calibrate` print.

#include "ctwin/replay/flow_sample.hpp"
#include "ctwin/replay/layer_calibration.hpp"
#include "ctwin/replay/layer_times.hpp"
#include "ctwin/replay/node_pool.hpp"
#include "ctwin/replay/scenario.hpp"
#include "ctwin/replay/step_figures.hpp"
#include "ctwin/replay/training_calibration.hpp"
#include "ctwin/replay/training_step.hpp"
#include "ctwin/replay/training_validation.hpp"
