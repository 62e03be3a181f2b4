#pragma once
// The validation layer's part of the public boundary (docs/architecture.md, "The public
// boundary"): every `validate` comparison (kernels, NCCL, runs, scaling, traces, training and
// its cross-validation) and the trace and training fits `calibrate` prints. Only front ends
// include this header (the layering test checks it).

#include "ctwin/validation/comparison.hpp"
#include "ctwin/validation/kernel_validation.hpp"
#include "ctwin/validation/nccl_validation.hpp"
#include "ctwin/validation/run_validation.hpp"
#include "ctwin/validation/scaling_validation.hpp"
#include "ctwin/validation/trace_calibration.hpp"
#include "ctwin/validation/trace_validation.hpp"
#include "ctwin/validation/training_calibration.hpp"
#include "ctwin/validation/training_cross_validation.hpp"
#include "ctwin/validation/training_validation.hpp"
