// ctwin calibrate --training: a GPU profile's training_time_scale from measured training runs (a
// cases file in the format of validation/training/cases.json), written into a copy of the base
// profile. Library: replay/training_calibration.

#include <iostream>
#include <optional>

#include "ctwin/api/public_validation.hpp"
#include "ctwin/cli/calibrate_options.hpp"
#include "ctwin/cli/fabric_options.hpp"
#include "ctwin/cli/output.hpp"
#include "ctwin/cli/validate_training.hpp"
#include "ctwin/api/public_compute.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/core/json_text.hpp"
#include "ctwin/api/public_replay.hpp"

namespace ctwin::cli {
namespace {

void add_rows(Table& table, const std::string& set, const std::vector<replay::TrainingComparison>& at_base,
              const std::vector<replay::TrainingComparison>& at_scale) {
  for (std::size_t i = 0; i < at_base.size(); ++i) {
    const auto& c = *at_base[i].training_case;
    table.add_row({set, c.id, value_text(c.metric, c.measured), value_text(c.metric, at_base[i].predicted),
                   signed_percent(at_base[i].error), value_text(c.metric, at_scale[i].predicted),
                   signed_percent(at_scale[i].error)});
  }
}

}  // namespace

api::TrainingCalibrationRequest training_calibration_request(const CalibrateOptions& options) {
  if (options.base.empty()) throw InputError("--base", "", "required with --training: the GPU profile to calibrate");
  if (options.output.empty()) throw InputError("-o", "", "required with --training: where to write the calibrated profile");
  if (options.holdout.size() > 1) throw InputError("--holdout", "", "takes one cases file with --training");
  api::TrainingCalibrationRequest request;
  request.network = step_network(options.network);
  request.cases = options.training;
  request.base = options.base;
  request.output = options.output;
  if (!options.holdout.empty()) request.holdout = options.holdout.front();
  request.only = options.only;
  request.network_name = options.network;
  request.jobs = options.jobs;
  request.progress = terminal_calibration_progress();
  return request;
}

void print_training_calibration(const api::TrainingCalibration& calibration, const CalibrateOptions& options,
                                Format format) {
  const auto& fit = calibration.fit;

  if (format == Format::kJson) {
    std::cout << json_text(api::training_calibration_json(calibration, options.output), 2) << '\n';
    return;
  }
  if (format == Format::kTable) {
    print_scale_headline(fit.scale, fit.base_scale,
                         std::to_string(fit.at_scale.size()) + " dense runs on " + calibration.gpu + " in " +
                             std::to_string(fit.rounds) + " rounds",
                         options.output, calibration.fit_median_abs_error, calibration.held_out_median_abs_error);
    std::cout << "; " << calibration.other_gpus << " runs on other GPUs skipped\n";
  }
  Table table({"set", "case", "measured", "predicted (base)", "error (base)", "predicted (fitted)", "error (fitted)"});
  add_rows(table, "fit", fit.at_base, fit.at_scale);
  add_rows(table, "holdout", calibration.held_base, calibration.held_scale);
  add_rows(table, "moe (not fitted)", calibration.moe_base, calibration.moe_scale);
  table.print(std::cout, format, format == Format::kTable ? "  " : "");
}

}  // namespace ctwin::cli
