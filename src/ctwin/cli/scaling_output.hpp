#pragma once
// One JSON layout for a scaling study's sizes, shared by `ctwin scale` and `ctwin validate --scaling`.

#include <nlohmann/json.hpp>

#include "ctwin/analysis/scaling.hpp"

namespace ctwin::cli {

/// Every size of `study`: its GPUs and batch, and either why it cannot run or its prediction.
[[nodiscard]] nlohmann::json scaling_points_json(const analysis::ScalingStudy& study);

}  // namespace ctwin::cli
