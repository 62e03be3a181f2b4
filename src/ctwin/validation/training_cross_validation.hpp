#pragma once
// `ctwin validate --training --calibrated` for front ends: each published run predicted as the
// bundled profiles predict it and with a training_time_scale fitted on its GPU's other dense
// runs (replay/training_calibration.hpp), and the JSON of the result.

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ctwin/validation/training_validation.hpp"
#include "ctwin/replay/training_calibration.hpp"

namespace ctwin::api {

/// Cross-validates the chosen cases of `validation` (loaded, not run) on the request's network,
/// `jobs` simulations at a time. A request with `profiles` is an InputError naming its field:
/// the calibration fits its own scale.
[[nodiscard]] replay::TrainingCrossValidation cross_validate_training(const TrainingValidation& validation,
                                                                      const TrainingValidationRequest& request,
                                                                      const replay::CalibrationProgress& progress = {});

/// The errors (predicted / measured − 1) of one group of runs: with the bundled profiles, with
/// the scale fitted on the GPU's other dense runs, with the scale fitted on other sources' runs
/// (only the runs that have such a fit).
struct CrossValidationErrors {
  ErrorStats uncalibrated;
  ErrorStats calibrated;
  ErrorStats other_sources;
};

/// Per group of the cases file, and "all"; the dense runs alone with `dense_only`.
[[nodiscard]] std::map<std::string, CrossValidationErrors> cross_validation_errors_by_group(
    const replay::TrainingCrossValidation& result, bool dense_only);

/// `ctwin validate --training --calibrated --format json`: {"network", "cases", "gpus", "summary"},
/// the summary's medians per group for every run and for the dense runs alone.
[[nodiscard]] nlohmann::json training_cross_validation_json(const replay::TrainingCrossValidation& result,
                                                            const std::string& network);

}  // namespace ctwin::api
