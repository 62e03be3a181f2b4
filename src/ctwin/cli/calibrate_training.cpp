// ctwin calibrate --training: a GPU profile's training_time_scale from measured training runs (a
// cases file in the format of validation/training/cases.json), written into a copy of the base
// profile. Library: replay/training_calibration.

#include <iostream>
#include <optional>

#include <nlohmann/json.hpp>

#include "ctwin/cli/calibrate_options.hpp"
#include "ctwin/cli/fabric_options.hpp"
#include "ctwin/cli/gpu_option.hpp"
#include "ctwin/cli/output.hpp"
#include "ctwin/cli/validate_training.hpp"
#include "ctwin/compute/gpu_spec.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/replay/training_calibration.hpp"

namespace ctwin::cli {
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

void add_rows(Table& table, const std::string& set, const std::vector<replay::TrainingComparison>& at_base,
              const std::vector<replay::TrainingComparison>& at_scale) {
  for (std::size_t i = 0; i < at_base.size(); ++i) {
    const auto& c = *at_base[i].training_case;
    table.add_row({set, c.id, value_text(c.metric, c.measured), value_text(c.metric, at_base[i].predicted),
                   signed_percent(at_base[i].error), value_text(c.metric, at_scale[i].predicted),
                   signed_percent(at_scale[i].error)});
  }
}

std::vector<double> errors_of(const std::vector<replay::TrainingComparison>& results) {
  std::vector<double> errors;
  for (const auto& r : results) errors.push_back(r.error);
  return errors;
}

}  // namespace

void calibrate_training(const CalibrateOptions& options) {
  if (options.base.empty()) throw InputError("--base", "", "required with --training: the GPU profile to calibrate");
  if (options.output.empty()) throw InputError("-o", "", "required with --training: where to write the calibrated profile");
  if (options.holdout.size() > 1) throw InputError("--holdout", "", "takes one cases file with --training");
  const Format format = parse_format(options.format);
  const network::ModelKind network = step_network(options.network);
  const auto base_path = resolve_gpu_path(options.base);
  const compute::GpuSpec base = compute::load_gpu_spec(base_path);

  auto cases = replay::load_training_cases(resolve_data_path(options.training), CTWIN_DATA_DIR);
  ChosenRuns chosen = choose(cases, base, options.only, "--training");
  if (chosen.fit.empty()) {
    throw InputError("--training", "", "only mixture-of-experts runs on " + base.name +
                                           ": their unmodelled costs are not a compute rate, so nothing to fit on");
  }
  std::optional<replay::TrainingCases> holdout_cases;
  ChosenRuns holdout;
  if (!options.holdout.empty()) {
    holdout_cases = replay::load_training_cases(resolve_data_path(options.holdout.front()), CTWIN_DATA_DIR);
    holdout = choose(*holdout_cases, base, options.only, "--holdout");
  }

  const auto fit =
      replay::fit_training_time_scale(chosen.fit, network, options.jobs, terminal_calibration_progress());
  std::vector<const replay::TrainingCase*> judged = holdout.fit;
  judged.insert(judged.end(), holdout.moe.begin(), holdout.moe.end());
  judged.insert(judged.end(), chosen.moe.begin(), chosen.moe.end());
  const auto judged_at_base = replay::predict_at_scale(judged, fit.base_scale, network, options.jobs);
  const auto judged_at_scale = replay::predict_at_scale(judged, fit.scale, network, options.jobs);
  const std::size_t held_out_count = holdout.fit.size() + holdout.moe.size();
  const std::vector<replay::TrainingComparison> held_base(judged_at_base.begin(), judged_at_base.begin() + held_out_count);
  const std::vector<replay::TrainingComparison> held_scale(judged_at_scale.begin(), judged_at_scale.begin() + held_out_count);
  const std::vector<replay::TrainingComparison> moe_base(judged_at_base.begin() + held_out_count, judged_at_base.end());
  const std::vector<replay::TrainingComparison> moe_scale(judged_at_scale.begin() + held_out_count, judged_at_scale.end());

  const auto fit_stats = replay::error_stats(errors_of(fit.at_scale));
  std::optional<double> held_out_error;
  if (!held_scale.empty()) held_out_error = replay::error_stats(errors_of(held_scale)).median_abs;
  write_profile_with_scale(base_path, fit.scale,
                           "ctwin calibrate --training " + options.training + ": " + std::to_string(fit.at_scale.size()) +
                               " dense runs' predicted throughput matched to the measured in geometric mean (median |error| "
                               "after the fit " + fixed(100 * fit_stats.median_abs, 1) + " %, " +
                               std::to_string(fit.rounds) + " rounds, network " + options.network + ")",
                           options.output);

  if (format == Format::kJson) {
    nlohmann::json out{{"output", options.output},   {"gpu", base.name},
                       {"base_scale", fit.base_scale}, {"training_time_scale", fit.scale},
                       {"rounds", fit.rounds},         {"fitted_runs", fit.at_scale.size()},
                       {"fit_median_abs_error", fit_stats.median_abs}, {"skipped_other_gpus", chosen.other_gpus}};
    if (held_out_error) out["holdout_median_abs_error"] = *held_out_error;
    if (!moe_scale.empty()) out["moe_median_abs_error"] = replay::error_stats(errors_of(moe_scale)).median_abs;
    std::cout << out.dump(2) << '\n';
    return;
  }
  if (format == Format::kTable) {
    print_scale_headline(fit.scale, fit.base_scale,
                         std::to_string(fit.at_scale.size()) + " dense runs on " + base.name + " in " +
                             std::to_string(fit.rounds) + " rounds",
                         options.output, fit_stats.median_abs, held_out_error);
    std::cout << "; " << chosen.other_gpus << " runs on other GPUs skipped\n";
  }
  Table table({"set", "case", "measured", "predicted (base)", "error (base)", "predicted (fitted)", "error (fitted)"});
  add_rows(table, "fit", fit.at_base, fit.at_scale);
  add_rows(table, "holdout", held_base, held_scale);
  add_rows(table, "moe (not fitted)", moe_base, moe_scale);
  table.print(std::cout, format, format == Format::kTable ? "  " : "");
}

}  // namespace ctwin::cli
