#pragma once
// The --scaling mode of `ctwin validate`: published scaling runs against `ctwin scale`.

#include <string>
#include <vector>

namespace ctwin::cli {

struct ScalingValidateOptions {
  std::string cases = "validation/training/scaling.json";
  std::string network = "flow";
  std::string format = "table";
  std::vector<std::string> overrides;  ///< --set key=value on every study's scenario
};

/// Prints, per study, every size's prediction beside the measured MFU and the trend (MFU at the
/// largest measured size over the smallest) against the published one. Throws InputError on a
/// bad cases file or option.
void run_scaling_validation(const ScalingValidateOptions& options);

}  // namespace ctwin::cli
