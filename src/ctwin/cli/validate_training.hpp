#pragma once
// The --training mode of `ctwin validate`: published training runs against `ctwin run`.

#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "ctwin/api/public_validation.hpp"
#include "ctwin/cli/output.hpp"

#include "ctwin/api/public_replay.hpp"

namespace ctwin::cli {

struct TrainingValidateOptions {
  std::string cases = "validation/training/cases.json";
  std::vector<std::string> only;
  std::string network = "flow";
  std::string format = "table";
  unsigned jobs = 1;  ///< cases simulated at once
  /// A folder of GPU profiles (e.g. written by `ctwin calibrate --layers`) that replace the
  /// cases' profiles of the same name; empty: the bundled ones.
  std::string profiles;
  /// Also predict each run with a training_time_scale fitted on its GPU's other dense runs
  /// (leave one out; replay/training_calibration.hpp).
  bool calibrated = false;
  /// --figure: the error of every run drawn into this .png/.svg (not with calibrated); empty: none.
  std::string figure;
};

/// InputError for options that do not go together (--calibrated with --profiles or --figure),
/// before anything is loaded.
void check_training_options(const TrainingValidateOptions& options);

/// --calibrated: the cross-validation and the loaded cases its runs point into, kept on the heap
/// so that moving the result never moves them.
struct CrossValidatedTraining {
  std::unique_ptr<const api::TrainingValidation> loaded;
  replay::TrainingCrossValidation result;
};

/// The runs as the profiles predict them or, with `calibrated`, also cross-validated.
using TrainingValidationResult = std::variant<api::TrainingValidation, CrossValidatedTraining>;

/// Throws InputError on a bad cases file or option.
[[nodiscard]] TrainingValidationResult evaluate_training_validation(const TrainingValidateOptions& options);

/// Predicted vs measured per case, per group, and the runs that cannot be expressed (or the
/// cross-validated layout); writes --figure.
void print_training_validation(const TrainingValidationResult& result, const TrainingValidateOptions& options);

/// A value in a case's metric as the tables print it (MFU as a percentage). Shared by the plain and
/// the cross-validated layouts and calibrate --training.
[[nodiscard]] std::string value_text(replay::TrainingMetric metric, double v);

/// A training_time_scale fit's progress as lines on stderr while that is a terminal; nothing
/// (an empty callback) otherwise. Shared by validate --training --calibrated and calibrate --training.
[[nodiscard]] replay::CalibrationProgress terminal_calibration_progress();

/// The --calibrated layout: every run uncalibrated and cross-validated, per GPU the scale fitted on
/// all its dense runs.
void print_cross_validation(const replay::TrainingCrossValidation& result, const std::string& network, Format format);

}  // namespace ctwin::cli
