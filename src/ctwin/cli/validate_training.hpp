#pragma once
// The --training mode of `ctwin validate`: published training runs against `ctwin run`.

#include <string>
#include <vector>

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

/// Prints predicted vs measured per case, per group, and the runs that cannot be expressed.
/// Throws InputError on a bad cases file or option.
void run_training_validation(const TrainingValidateOptions& options);

/// A value in a case's metric as the tables print it (MFU as a percentage). Shared by the plain and
/// the cross-validated layouts and calibrate --training.
[[nodiscard]] std::string value_text(replay::TrainingMetric metric, double v);

/// A training_time_scale fit's progress as lines on stderr while that is a terminal; nothing
/// (an empty callback) otherwise. Shared by validate --training --calibrated and calibrate --training.
[[nodiscard]] replay::CalibrationProgress terminal_calibration_progress();

/// The --calibrated layout: every run uncalibrated and cross-validated, per GPU the scale fitted on
/// all its dense runs. `format` is table, json or csv.
void print_cross_validation(const std::vector<const replay::TrainingCase*>& chosen, const std::string& network,
                            unsigned jobs, const std::string& format);

}  // namespace ctwin::cli
