#include "ctwin/validation/scaling_validation.hpp"

#include <cstdint>
#include <map>

#include "ctwin/api/report_json.hpp"

namespace ctwin::api {

ScalingValidation validate_scaling(const ScalingValidationRequest& request, const std::filesystem::path& repo_root) {
  ScalingValidation out;
  out.network = request.network;
  out.cases = std::make_shared<const analysis::ScalingCases>(
      analysis::load_scaling_cases(resolve_data_path(request.cases), repo_root));
  for (const auto& study : out.cases->studies) {
    out.results.push_back(analysis::validate_scaling(study, repo_root, request.network, request.overrides));
  }
  return out;
}

std::vector<ComparisonRow> scaling_size_rows(const ScalingValidation& validation) {
  std::vector<ComparisonRow> rows;
  for (const auto& c : validation.results) {
    std::map<std::int64_t, const analysis::MfuComparison*> measured;
    for (const auto& p : c.points) measured[p.measured.gpus] = &p;
    for (const auto& p : c.study.points) {
      if (!p.invalid.empty()) continue;
      ComparisonRow row;
      row.case_id = c.scaling_case->id;
      row.metric = "MFU";
      row.labels = {std::to_string(p.gpus)};
      row.predicted = p.report.mfu;
      const auto m = measured.find(p.gpus);
      row.compared = m != measured.end();
      if (row.compared) {
        row.measured = m->second->measured.mfu;
        row.error = m->second->error;
      }
      rows.push_back(std::move(row));
    }
  }
  return rows;
}

const std::vector<ComparisonColumn>& scaling_csv_columns() {
  using F = ComparisonField;
  static const std::vector<ComparisonColumn> kColumns{
      {.header = "study", .field = F::kCase},
      {.header = "gpus", .field = F::kLabel, .label = 0},
      {.header = "predicted_mfu", .field = F::kPredicted, .decimals = 4, .scaled = false},
      // A size the source did not measure: empty cells, as the CSV always had.
      {.header = "measured_mfu", .field = F::kMeasured, .decimals = 4, .scaled = false, .measured_optional = true},
      {.header = "error", .field = F::kErrorFraction, .decimals = 4},
  };
  return kColumns;
}

std::vector<ComparisonRow> scaling_measured_rows(const analysis::ScalingComparison& comparison) {
  std::vector<ComparisonRow> rows;
  for (const auto& m : comparison.points) {
    ComparisonRow row;
    row.case_id = comparison.scaling_case->id;
    row.metric = "MFU";
    row.labels = {m.measured.run};
    row.figures = {static_cast<double>(m.measured.gpus)};
    row.measured = m.measured.mfu;
    row.predicted = m.predicted;
    row.error = m.error;
    rows.push_back(std::move(row));
  }
  return rows;
}

const std::vector<ComparisonColumn>& scaling_measured_columns() {
  using F = ComparisonField;
  static const std::vector<ComparisonColumn> kColumns{
      {.json_key = "run", .field = F::kLabel, .label = 0},
      {.json_key = "gpus", .field = F::kFigure, .label = 0, .integer = true},
      {.json_key = "measured_mfu", .field = F::kMeasured},
      {.json_key = "predicted_mfu", .field = F::kPredicted},
      {.json_key = "error", .field = F::kErrorFraction},
  };
  return kColumns;
}

nlohmann::json scaling_validation_json(const ScalingValidation& validation) {
  nlohmann::json studies = nlohmann::json::array();
  for (const auto& c : validation.results) {
    const nlohmann::json measured = comparison_rows_json(scaling_measured_columns(), scaling_measured_rows(c));
    studies.push_back({{"id", c.scaling_case->id},
                       {"model", c.study.model},
                       {"points", scaling_points_json(c.study)},
                       {"measured", measured},
                       {"measured_ratio", c.measured_ratio},
                       {"measured_ratio_low", c.measured_ratio_low},
                       {"measured_ratio_high", c.measured_ratio_high},
                       {"predicted_ratio", c.predicted_ratio},
                       {"trend_reproduced", c.trend_reproduced()}});
  }
  return {{"network", network::name(validation.network)}, {"studies", studies}};
}

}  // namespace ctwin::api
