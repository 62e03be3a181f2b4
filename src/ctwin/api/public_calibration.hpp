#pragma once
// Calibration's part of the public boundary (docs/architecture.md, "The public boundary"): the
// calibration file of a machine, the NCCL fit, its file, and a measured log's comparison rows.

#include "ctwin/calibration/calibration_bundle.hpp"
#include "ctwin/calibration/nccl_calibration_file.hpp"
#include "ctwin/calibration/nccl_comparison.hpp"
#include "ctwin/calibration/nccl_fit.hpp"
