#pragma once
// The analysis layer's part of the public boundary (docs/architecture.md, "The public boundary"):
// scaling studies and their validation, the goodput study and the reliability model's
// validation, and the error bands of a prediction.

#include "ctwin/analysis/error_bands.hpp"
#include "ctwin/analysis/goodput_study.hpp"
#include "ctwin/analysis/reliability_validation.hpp"
#include "ctwin/analysis/scaling.hpp"
#include "ctwin/analysis/scaling_validation.hpp"
