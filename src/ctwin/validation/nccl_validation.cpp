#include "ctwin/validation/nccl_validation.hpp"

#include "ctwin/api/data_dir.hpp"
#include "ctwin/api/gpu_profile.hpp"
#include "ctwin/core/error.hpp"

namespace ctwin::api {
namespace {

bool selected(const calibration::NcclSetup& setup, const NcclValidationRequest& request) {
  if (request.role != "all" && setup.role != request.role) return false;
  if (request.only.empty()) return true;
  for (const std::string& text : request.only) {
    if (setup.id.find(text) != std::string::npos) return true;
  }
  return false;
}

struct SizeSplit {
  std::vector<double> large, small;
  void add(const calibration::LogComparison& comparison) {
    for (const auto& row : comparison.rows) (calibration::is_large(row.size) ? large : small).push_back(row.error);
  }
  [[nodiscard]] NcclErrorSplit stats() && { return {error_stats(std::move(large)), error_stats(std::move(small))}; }
};

}  // namespace

NcclErrorSplit error_split(const calibration::LogComparison& comparison) {
  SizeSplit split;
  split.add(comparison);
  return std::move(split).stats();
}

std::map<std::string, NcclGroupErrors> nccl_group_errors(const NcclValidation& validation) {
  std::map<std::string, std::pair<SizeSplit, SizeSplit>> groups;
  for (const auto& result : validation.results) {
    if (!result.skipped.empty()) continue;
    auto& [uncalibrated, calibrated] = groups[validation_group(*result.setup) + " (" + result.setup->role + ")"];
    uncalibrated.add(result.uncalibrated);
    if (result.calibrated) calibrated.add(*result.calibrated);
  }
  std::map<std::string, NcclGroupErrors> out;
  for (auto& [group, splits] : groups) out[group] = {std::move(splits.first).stats(), std::move(splits.second).stats()};
  return out;
}

NcclValidation validate_nccl(const NcclValidationRequest& request) {
  if (request.role != "all" && request.role != "check" && request.role != "underperforming") {
    throw InputError(request.role_field, "",
                     "unknown value '" + request.role + "' (expected check, underperforming or all)");
  }
  NcclValidation out;
  out.manifest = calibration::read_nccl_setups(resolve_data_path(request.setups));
  std::vector<const calibration::NcclSetup*> chosen;
  for (const auto& setup : out.manifest) {
    if (selected(setup, request)) chosen.push_back(&setup);
  }
  if (chosen.empty()) throw InputError(request.only_field, "", "no setup of " + request.setups + " matches");
  calibration::ValidationOptions validation;
  validation.network = request.network;
  validation.calibrate = request.calibrated;
  validation.load_topology = [](const std::string& path) { return attach_gpu_arch(fabric::load_cluster(resolve_data_path(path))); };
  out.results = calibration::validate_setups(out.manifest, chosen, validation);
  return out;
}

std::string validation_group(const calibration::NcclSetup& setup) {
  std::string topology = setup.topology.value_or("");
  const auto slash = topology.find_last_of('/');
  if (slash != std::string::npos) topology = topology.substr(slash + 1);
  if (topology.ends_with(".json")) topology.resize(topology.size() - 5);
  return topology + (setup.nodes == 1 ? ", 1 node" : ", multi-node");
}

namespace {

// One row per size of a log; the figures are what the JSON adds (size, the two times).
void add_log_rows(std::vector<ComparisonRow>& rows, const calibration::NcclSetup& setup,
                  const calibration::LogComparison& comparison, const char* calibrated) {
  for (const auto& size : comparison.rows) {
    ComparisonRow row;
    row.case_id = setup.id;
    row.role = setup.role;
    row.metric = "busbw GB/s";
    row.measured = size.measured_busbw_GBps;
    row.predicted = size.predicted_busbw_GBps;
    row.error = size.error;
    row.labels = {validation_group(setup), std::to_string(setup.ranks), std::to_string(size.size.count()),
                  std::string(collectives::name(size.algorithm)), std::string(collectives::name(size.protocol)),
                  calibrated};
    row.figures = {static_cast<double>(size.size.count()), size.measured_time.seconds() * 1e6,
                   size.predicted_time.seconds() * 1e6};
    rows.push_back(std::move(row));
  }
}

// Each setup's "rows" and "calibrated_rows" in --format json.
const std::vector<ComparisonColumn>& nccl_json_columns() {
  using F = ComparisonField;
  static const std::vector<ComparisonColumn> kColumns{
      {.json_key = "size_bytes", .field = F::kFigure, .label = 0, .integer = true},
      {.json_key = "measured_time_us", .field = F::kFigure, .label = 1},
      {.json_key = "predicted_time_us", .field = F::kFigure, .label = 2},
      {.json_key = "measured_busbw_GBps", .field = F::kMeasured},
      {.json_key = "predicted_busbw_GBps", .field = F::kPredicted},
      {.json_key = "error", .field = F::kErrorFraction},
      {.json_key = "algo", .field = F::kLabel, .label = 3},
      {.json_key = "protocol", .field = F::kLabel, .label = 4},
  };
  return kColumns;
}

nlohmann::json rows_json(const calibration::SetupValidation& result, const calibration::LogComparison& comparison) {
  std::vector<ComparisonRow> rows;
  add_log_rows(rows, *result.setup, comparison, "");
  return comparison_rows_json(nccl_json_columns(), rows);
}

}  // namespace

std::vector<ComparisonRow> nccl_comparison_rows(const NcclValidation& validation) {
  std::vector<ComparisonRow> rows;
  for (const auto& result : validation.results) {
    if (!result.skipped.empty()) continue;
    add_log_rows(rows, *result.setup, result.uncalibrated, "no");
    if (result.calibrated) add_log_rows(rows, *result.setup, *result.calibrated, "yes");
  }
  return rows;
}

const std::vector<ComparisonColumn>& nccl_csv_columns() {
  using F = ComparisonField;
  static const std::vector<ComparisonColumn> kColumns{
      {"setup", "", F::kCase},
      {"role", "", F::kRole},
      {"group", "", F::kLabel, 0},
      {"ranks", "", F::kLabel, 1},
      {"size_bytes", "", F::kLabel, 2},
      {"measured_busbw_GBps", "", F::kMeasured, 0, 3, false},
      {"predicted_busbw_GBps", "", F::kPredicted, 0, 3, false},
      {"error", "", F::kErrorFraction, 0, 4},
      {"algo", "", F::kLabel, 3},
      {"protocol", "", F::kLabel, 4},
      {"calibrated", "", F::kLabel, 5},
  };
  return kColumns;
}

nlohmann::json nccl_validation_json(const NcclValidation& validation, const std::string& network, bool calibrated) {
  nlohmann::json setups = nlohmann::json::array();
  for (const auto& result : validation.results) {
    nlohmann::json entry{{"id", result.setup->id},       {"role", result.setup->role},
                         {"ranks", result.setup->ranks}, {"op", collectives::name(result.setup->op)},
                         {"group", validation_group(*result.setup)}, {"cluster", result.setup->cluster}};
    if (!result.skipped.empty()) {
      entry["skipped"] = result.skipped;
    } else {
      entry["rows"] = rows_json(result, result.uncalibrated);
      if (calibrated) {
        entry["calibrated_on"] = result.calibrated_on;
        entry["calibrated_rows"] = result.calibrated ? rows_json(result, *result.calibrated) : nlohmann::json::array();
      }
    }
    setups.push_back(entry);
  }
  nlohmann::json groups = nlohmann::json::object();
  for (const auto& [group, errors] : nccl_group_errors(validation)) {
    nlohmann::json entry{{"large", error_stats_json(errors.uncalibrated.large, "rows")},
                         {"small", error_stats_json(errors.uncalibrated.small, "rows")}};
    if (calibrated) {
      entry["calibrated_large"] = error_stats_json(errors.calibrated.large, "rows");
      entry["calibrated_small"] = error_stats_json(errors.calibrated.small, "rows");
    }
    groups[group] = entry;
  }
  return {{"network", network}, {"setups", setups}, {"groups", groups}};
}

}  // namespace ctwin::api
