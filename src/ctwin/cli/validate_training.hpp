#pragma once
// The --training mode of `ctwin validate`: published training runs against `ctwin run`.

#include <string>
#include <vector>

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
};

/// Prints predicted vs measured per case, per group, and the runs that cannot be expressed.
/// Throws InputError on a bad cases file or option.
void run_training_validation(const TrainingValidateOptions& options);

}  // namespace ctwin::cli
