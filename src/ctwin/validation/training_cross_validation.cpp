#include "ctwin/core/error_stats.hpp"
#include "ctwin/validation/training_cross_validation.hpp"

#include <map>
#include <vector>

#include "ctwin/core/error.hpp"

namespace ctwin::api {
namespace {

}  // namespace

std::map<std::string, CrossValidationErrors> cross_validation_errors_by_group(const replay::TrainingCrossValidation& result,
                                                                              bool dense_only) {
  struct Errors {
    std::vector<double> uncalibrated, calibrated, other_sources;
  };
  std::map<std::string, Errors> errors;
  for (const auto& run : result.runs) {
    if (dense_only && !run.dense) continue;
    for (const std::string& key : {run.training_case->group, std::string("all")}) {
      errors[key].uncalibrated.push_back(run.uncalibrated.error);
      if (run.calibrated) errors[key].calibrated.push_back(run.calibrated->error);
      if (run.other_sources) errors[key].other_sources.push_back(run.other_sources->error);
    }
  }
  std::map<std::string, CrossValidationErrors> groups;
  for (auto& [key, e] : errors) {
    groups[key] = {error_stats(std::move(e.uncalibrated)), error_stats(std::move(e.calibrated)),
                   error_stats(std::move(e.other_sources))};
  }
  return groups;
}

replay::TrainingCrossValidation cross_validate_training(const TrainingValidation& validation,
                                                        const TrainingValidationRequest& request,
                                                        const replay::CalibrationProgress& progress) {
  if (!request.profiles.empty()) {
    throw InputError(request.profiles_field, "", "the calibrated validation fits its own training_time_scale; give one or the other");
  }
  return replay::cross_validate_training(validation.chosen, request.network, request.jobs, progress);
}

nlohmann::json training_cross_validation_json(const replay::TrainingCrossValidation& result, const std::string& network) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& run : result.runs) {
    const auto& c = *run.training_case;
    nlohmann::json row{{"id", c.id},
                       {"group", c.group},
                       {"gpu", c.scenario.gpu.name},
                       {"dense", run.dense},
                       {"metric", replay::metric_name(c.metric)},
                       {"measured", c.measured},
                       {"predicted_uncalibrated", run.uncalibrated.predicted},
                       {"error_uncalibrated", run.uncalibrated.error}};
    if (run.calibrated) {
      row["training_time_scale"] = run.scale;
      row["fitted_on_runs"] = run.fitted_on;
      row["predicted_calibrated"] = run.calibrated->predicted;
      row["error_calibrated"] = run.calibrated->error;
    }
    if (run.other_sources) {
      row["other_sources_training_time_scale"] = run.other_sources_scale;
      row["other_sources_fitted_on_runs"] = run.other_sources_runs;
      row["predicted_other_sources"] = run.other_sources->predicted;
      row["error_other_sources"] = run.other_sources->error;
    }
    rows.push_back(row);
  }
  nlohmann::json gpus = nlohmann::json::array();
  for (const auto& g : result.gpus) {
    gpus.push_back({{"gpu", g.gpu}, {"dense_runs", g.dense_runs}, {"training_time_scale", g.scale}, {"rounds", g.rounds}});
  }
  nlohmann::json summary = nlohmann::json::object();
  for (const bool dense_only : {false, true}) {
    nlohmann::json groups = nlohmann::json::object();
    for (const auto& [group, errors] : cross_validation_errors_by_group(result, dense_only)) {
      groups[group] = {{"uncalibrated", error_stats_json(errors.uncalibrated, "count")},
                       {"calibrated", error_stats_json(errors.calibrated, "count")},
                       {"other_sources", error_stats_json(errors.other_sources, "count")}};
    }
    summary[dense_only ? "dense" : "every_run"] = groups;
  }
  return {{"network", network}, {"cases", rows}, {"gpus", gpus}, {"summary", summary}};
}

}  // namespace ctwin::api
