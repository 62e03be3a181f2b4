#pragma once
// `ctwin validate --training` for front ends: published training runs replayed by the twin and
// compared with what their sources measured, and the JSON of the result.

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ctwin/api/data_dir.hpp"
#include "ctwin/replay/training_validation.hpp"
#include "ctwin/validation/comparison.hpp"

namespace ctwin::api {

struct TrainingValidationRequest {
  std::string cases = "validation/training/cases.json";
  std::vector<std::string> only;  ///< cases whose id contains one of these; empty: every one
  network::ModelKind network = network::ModelKind::kFlow;
  /// A folder of GPU profiles that replace the cases' profiles of the same name; empty: none.
  std::string profiles;
  unsigned jobs = 1;  ///< cases simulated at once (results do not depend on it)
  replay::TrainingProgress progress;
  // Names of the inputs in errors: the CLI's flags, Python's keywords.
  std::string only_field = "--only";
  std::string profiles_field = "--profiles";
};

struct TrainingValidation {
  replay::TrainingCases cases;                      ///< owns the cases `chosen` and the results point to
  std::vector<const replay::TrainingCase*> chosen;  ///< the cases `only` selects, in file order
  std::vector<std::string> replaced;                ///< profile names `profiles` replaced
  std::vector<replay::TrainingComparison> results;  ///< one per chosen case, once run
};

/// Reads the cases, swaps in the request's profiles and chooses the cases; runs nothing.
[[nodiscard]] TrainingValidation load_training_validation(const TrainingValidationRequest& request,
                                                          const std::filesystem::path& repo_root = data_dir());

/// Replays every chosen case and compares it with its measurement.
void run_training_validation(TrainingValidation& validation, const TrainingValidationRequest& request);

/// Both.
[[nodiscard]] TrainingValidation validate_training(const TrainingValidationRequest& request,
                                                   const std::filesystem::path& repo_root = data_dir());

/// The parallel split a case ran, as the tables print it: "tp2 pp4 dp8 mb1 x16 bf16 rc-none".
[[nodiscard]] std::string training_split_text(const replay::Scenario& scenario, const replay::StepReport& report);

/// One row per result: case its id, role its group, metric its metric's name; labels: GPUs, split,
/// the metric's unit, fits in memory ("yes"/"NO"); figures: the step's MFU. An MFU case shows its
/// values as percentages.
[[nodiscard]] std::vector<ComparisonRow> training_comparison_rows(const TrainingValidation& validation);

/// The CSV's columns (id, group, gpus, split, metric, measured, predicted, error), the JSON rows'
/// too but for gpus, a number there.
[[nodiscard]] const std::vector<ComparisonColumn>& training_comparison_columns();

/// The table's columns: case, GPUs, split, metric (its unit), measured, predicted, error, MFU, fits.
[[nodiscard]] const std::vector<ComparisonColumn>& training_table_columns();

/// `ctwin validate --training --format json`: {"network", "cases", "summary", "groups", "not_expressible"}.
[[nodiscard]] nlohmann::json training_validation_json(const TrainingValidation& validation, const std::string& network);

}  // namespace ctwin::api
