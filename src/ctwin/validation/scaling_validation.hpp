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
#include "ctwin/validation/comparison.hpp"

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

/// Every size a study predicted (invalid ones left out), in order, compared with the MFU the
/// source measured at that size where it did: case the study, labels {gpus}, the metric MFU.
[[nodiscard]] std::vector<ComparisonRow> scaling_size_rows(const ScalingValidation& validation);
/// --format csv's columns of those rows: study, gpus, predicted_mfu, measured_mfu, error.
[[nodiscard]] const std::vector<ComparisonColumn>& scaling_csv_columns();

/// One row per size a study's source measured: case the study, labels {run}, figures {gpus}.
[[nodiscard]] std::vector<ComparisonRow> scaling_measured_rows(const analysis::ScalingComparison& comparison);
/// Their JSON keys (each study's "measured"): run, gpus, measured_mfu, predicted_mfu, error.
[[nodiscard]] const std::vector<ComparisonColumn>& scaling_measured_columns();

/// `ctwin validate --scaling --format json`: {"network", "studies": [{"id", "model", "points",
/// "measured", "measured_ratio", "measured_ratio_low", "measured_ratio_high", "predicted_ratio",
/// "trend_reproduced"}]}.
[[nodiscard]] nlohmann::json scaling_validation_json(const ScalingValidation& validation);

}  // namespace ctwin::api
