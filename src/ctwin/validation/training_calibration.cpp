#include "ctwin/core/error_stats.hpp"
#include "ctwin/validation/training_calibration.hpp"

#include <cstdio>

#include "ctwin/api/gpu_profile.hpp"
#include "ctwin/api/profile_scale.hpp"
#include "ctwin/compute/gpu_spec.hpp"
#include "ctwin/core/error.hpp"

namespace ctwin::api {
namespace {

struct ChosenRuns {
  std::vector<const replay::TrainingCase*> fit;  ///< dense runs on the base's GPU
  std::vector<const replay::TrainingCase*> moe;  ///< predicted, never fitted on
  std::size_t other_gpus = 0;                    ///< skipped: another GPU
};

bool matches(const std::vector<std::string>& only, const std::string& id) {
  if (only.empty()) return true;
  for (const auto& text : only) {
    if (id.find(text) != std::string::npos) return true;
  }
  return false;
}

// The base profile stands in for each run's own, which must carry the base's name: a run on
// another GPU says nothing about this one.
ChosenRuns choose(replay::TrainingCases& cases, const compute::GpuSpec& base, const std::vector<std::string>& only,
                  const std::string& flag) {
  ChosenRuns chosen;
  for (auto& c : cases.cases) {
    if (!matches(only, c.id)) continue;
    if (c.scenario.gpu.name != base.name) {
      ++chosen.other_gpus;
      continue;
    }
    c.scenario.gpu = base;
    (c.scenario.model.has_moe ? chosen.moe : chosen.fit).push_back(&c);
  }
  if (chosen.fit.empty() && chosen.moe.empty()) {
    throw InputError(flag, "", "no run on " + base.name + (only.empty() ? "" : " matching --only") + " in the file");
  }
  return chosen;
}

std::vector<double> errors_of(const std::vector<replay::TrainingComparison>& results) {
  std::vector<double> errors;
  for (const auto& r : results) errors.push_back(r.error);
  return errors;
}

std::string one_decimal(double value) {
  char text[64];
  std::snprintf(text, sizeof text, "%.1f", value);
  return text;
}

void add_rows(nlohmann::json& rows, const char* set, const std::vector<replay::TrainingComparison>& at_base,
              const std::vector<replay::TrainingComparison>& at_scale) {
  for (std::size_t i = 0; i < at_base.size(); ++i) {
    const auto& c = *at_base[i].training_case;
    rows.push_back({{"set", set}, {"id", c.id}, {"metric", replay::metric_name(c.metric)}, {"measured", c.measured},
                    {"predicted_base", at_base[i].predicted}, {"error_base", at_base[i].error},
                    {"predicted_fitted", at_scale[i].predicted}, {"error_fitted", at_scale[i].error}});
  }
}

}  // namespace

TrainingCalibration calibrate_training(const TrainingCalibrationRequest& request, const std::filesystem::path& repo_root) {
  const auto base_path = resolve_gpu_path(request.base, request.gpu_field);
  const compute::GpuSpec base = compute::load_gpu_spec(base_path);
  TrainingCalibration out;
  out.gpu = base.name;
  out.cases = replay::load_training_cases(resolve_data_path(request.cases), repo_root);
  ChosenRuns chosen = choose(out.cases, base, request.only, request.cases_field);
  if (chosen.fit.empty()) {
    throw InputError(request.cases_field, "", "only mixture-of-experts runs on " + base.name +
                                                  ": their unmodelled costs are not a compute rate, so nothing to fit on");
  }
  ChosenRuns holdout;
  if (request.holdout) {
    out.holdout_cases = replay::load_training_cases(resolve_data_path(*request.holdout), repo_root);
    holdout = choose(*out.holdout_cases, base, request.only, request.holdout_field);
  }
  out.other_gpus = chosen.other_gpus;

  out.fit = replay::fit_training_time_scale(chosen.fit, request.network, request.jobs, request.progress);
  std::vector<const replay::TrainingCase*> judged = holdout.fit;
  judged.insert(judged.end(), holdout.moe.begin(), holdout.moe.end());
  judged.insert(judged.end(), chosen.moe.begin(), chosen.moe.end());
  const auto at_base = replay::predict_at_scale(judged, out.fit.base_scale, request.network, request.jobs);
  const auto at_scale = replay::predict_at_scale(judged, out.fit.scale, request.network, request.jobs);
  const auto held = static_cast<std::ptrdiff_t>(holdout.fit.size() + holdout.moe.size());
  out.held_base.assign(at_base.begin(), at_base.begin() + held);
  out.held_scale.assign(at_scale.begin(), at_scale.begin() + held);
  out.moe_base.assign(at_base.begin() + held, at_base.end());
  out.moe_scale.assign(at_scale.begin() + held, at_scale.end());

  out.fit_median_abs_error = error_stats(errors_of(out.fit.at_scale)).median_abs;
  if (!out.held_scale.empty()) out.held_out_median_abs_error = error_stats(errors_of(out.held_scale)).median_abs;
  write_profile_with_scale(base_path, out.fit.scale,
                           "ctwin calibrate --training " + request.cases + ": " + std::to_string(out.fit.at_scale.size()) +
                               " dense runs' predicted throughput matched to the measured in geometric mean (median |error| "
                               "after the fit " + one_decimal(100 * out.fit_median_abs_error) + " %, " +
                               std::to_string(out.fit.rounds) + " rounds, network " + request.network_name + ")",
                           request.output, request.base_field);
  return out;
}

nlohmann::json training_calibration_json(const TrainingCalibration& c, const std::string& output) {
  nlohmann::json out{{"output", output},   {"gpu", c.gpu},
                     {"base_scale", c.fit.base_scale}, {"training_time_scale", c.fit.scale},
                     {"rounds", c.fit.rounds},         {"fitted_runs", c.fit.at_scale.size()},
                     {"fit_median_abs_error", c.fit_median_abs_error}, {"skipped_other_gpus", c.other_gpus}};
  if (c.held_out_median_abs_error) out["holdout_median_abs_error"] = *c.held_out_median_abs_error;
  if (!c.moe_scale.empty()) out["moe_median_abs_error"] = error_stats(errors_of(c.moe_scale)).median_abs;
  return out;
}

nlohmann::json training_calibration_rows_json(const TrainingCalibration& c) {
  nlohmann::json rows = nlohmann::json::array();
  add_rows(rows, "fit", c.fit.at_base, c.fit.at_scale);
  add_rows(rows, "holdout", c.held_base, c.held_scale);
  add_rows(rows, "moe", c.moe_base, c.moe_scale);
  return rows;
}

}  // namespace ctwin::api
