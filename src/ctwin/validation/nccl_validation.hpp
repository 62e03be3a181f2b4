#pragma once
// `ctwin validate` (nccl-tests logs) for front ends: the setups of a manifest chosen by role and
// id, predicted on their bundled topologies, and the JSON of the result.

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ctwin/calibration/nccl_validation.hpp"
#include "ctwin/core/error_stats.hpp"
#include "ctwin/validation/comparison.hpp"

namespace ctwin::api {

struct NcclValidationRequest {
  std::string setups = "validation/nccl/setups.json";  ///< the manifest
  std::string role = "all";        ///< check, underperforming or all
  std::vector<std::string> only;   ///< setups whose id contains one of these; empty: every one
  network::ModelKind network = network::ModelKind::kFlow;
  bool calibrated = false;  ///< also calibrate on one log per cluster and score the others
  // Names of the inputs in errors: the CLI's flags, Python's keywords.
  std::string role_field = "--role";
  std::string only_field = "--only";
};

struct NcclValidation {
  std::vector<calibration::NcclSetup> manifest;         ///< owns the setups the results point to
  std::vector<calibration::SetupValidation> results;  ///< in manifest order
};

[[nodiscard]] NcclValidation validate_nccl(const NcclValidationRequest& request);

/// The acceptance group of a setup: "<topology>, 1 node" or "<topology>, multi-node".
[[nodiscard]] std::string validation_group(const calibration::NcclSetup& setup);

/// |busbw error| of nccl-tests rows at or above 1 MiB and below: the acceptance split of sizes.
struct NcclErrorSplit {
  ErrorStats large;
  ErrorStats small;
};
[[nodiscard]] NcclErrorSplit error_split(const calibration::LogComparison& comparison);

/// Every row of a group's setups pooled, by "<group> (<role>)"; skipped setups left out, and
/// `calibrated` empty (count 0) without a calibration.
struct NcclGroupErrors {
  NcclErrorSplit uncalibrated;
  NcclErrorSplit calibrated;
};
[[nodiscard]] std::map<std::string, NcclGroupErrors> nccl_group_errors(const NcclValidation& validation);

/// Every size of every setup not skipped, its calibrated sizes after its uncalibrated ones: case the
/// setup's id, role its role, metric "busbw GB/s"; labels: group, ranks, size in bytes, algorithm,
/// protocol, calibrated ("no"/"yes").
[[nodiscard]] std::vector<ComparisonRow> nccl_comparison_rows(const NcclValidation& validation);

/// The CSV's columns (`ctwin validate --format csv`: one line per size).
[[nodiscard]] const std::vector<ComparisonColumn>& nccl_csv_columns();

/// `ctwin validate --format json`: {"network", "setups": [{id, role, ranks, op, group, cluster,
/// "skipped" or "rows" (and with `calibrated`, "calibrated_on" and "calibrated_rows")}], "groups":
/// {group: {"large", "small" (and "calibrated_large", "calibrated_small")}}}.
[[nodiscard]] nlohmann::json nccl_validation_json(const NcclValidation& validation, const std::string& network,
                                                  bool calibrated);

}  // namespace ctwin::api
