#pragma once
// The --scaling mode of `ctwin validate`: published scaling runs against `ctwin scale`.

#include <string>
#include <vector>

#include "ctwin/api/public_validation.hpp"
#include "ctwin/cli/output.hpp"

namespace ctwin::cli {

struct ScalingValidateOptions {
  std::string cases = "validation/training/scaling.json";
  std::string network = "flow";
  std::string format = "table";
  std::vector<std::string> overrides;  ///< --set key=value on every study's scenario
};

/// Every study replayed at its sizes. Throws InputError on a bad cases file or option.
[[nodiscard]] api::ScalingValidation evaluate_scaling_validation(const ScalingValidateOptions& options);

/// Per study, every size's prediction beside the measured MFU and the trend (MFU at the largest
/// measured size over the smallest) against the published one.
void print_scaling_validation(const api::ScalingValidation& validation, const std::string& network, Format format);

}  // namespace ctwin::cli
