#pragma once
// `ctwin validate --scaling` for front ends: published scaling runs replayed by the scaling
// study beside their measured MFU, and the JSON of the result.

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ctwin/analysis/scaling_validation.hpp"
#include "ctwin/api/data_dir.hpp"

namespace ctwin::api {

struct ScalingValidationRequest {
  std::string cases = "validation/training/scaling.json";
  network::ModelKind network = network::ModelKind::kFlow;
  std::vector<std::string> overrides;  ///< "key=value" on every study's scenario
};

struct ScalingValidation {
  /// Owns the studies `results` point to; shared so that copies keep them alive.
  std::shared_ptr<const analysis::ScalingCases> cases;
  std::vector<analysis::ScalingComparison> results;  ///< one per study, in file order
  network::ModelKind network = network::ModelKind::kFlow;
};

[[nodiscard]] ScalingValidation validate_scaling(const ScalingValidationRequest& request,
                                                 const std::filesystem::path& repo_root = data_dir());

/// `ctwin validate --scaling --format json`: {"network", "studies": [{"id", "model", "points",
/// "measured", "measured_ratio", "measured_ratio_low", "measured_ratio_high", "predicted_ratio",
/// "trend_reproduced"}]}.
[[nodiscard]] nlohmann::json scaling_validation_json(const ScalingValidation& validation);

}  // namespace ctwin::api
