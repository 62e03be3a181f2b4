// ctwin validate --training --calibrated: each published run predicted as the bundled profiles
// predict it and with a training_time_scale fitted on its GPU's other dense runs (library:
// replay/training_calibration). This file only lays the results out.

#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <map>

#include <nlohmann/json.hpp>

#include "ctwin/core/error_stats.hpp"
#include "ctwin/api/public_validation.hpp"
#include "ctwin/cli/output.hpp"
#include "ctwin/cli/validate_training.hpp"
#include "ctwin/core/json_text.hpp"
#include "ctwin/api/public_replay.hpp"

namespace ctwin::cli {
namespace {

std::string percent(double fraction) { return fixed(100 * fraction, 1) + " %"; }

void print_rows(const replay::TrainingCrossValidation& result, Format format) {
  // Distinct names: the csv layout is read by name.
  Table table({"case", "kind", "measured", "uncalibrated", "uncalibrated error", "scale", "fitted on", "calibrated",
               "calibrated error", "other-source scale", "other-source runs", "other-source error"});
  for (const auto& run : result.runs) {
    const auto& c = *run.training_case;
    std::vector<std::string> row{c.id, run.dense ? "dense" : "moe", value_text(c.metric, c.measured),
                                 value_text(c.metric, run.uncalibrated.predicted), signed_percent(run.uncalibrated.error)};
    if (run.calibrated) {
      for (const auto& cell : {fixed(run.scale, 3), std::to_string(run.fitted_on) + (!run.dense ? " dense" : run.fitted_on == 1 ? " other" : " others"),
                               value_text(c.metric, run.calibrated->predicted), signed_percent(run.calibrated->error)}) {
        row.push_back(cell);
      }
    } else {
      for (const char* cell : {"-", "no other run", "-", "-"}) row.emplace_back(cell);
    }
    if (run.other_sources) {
      row.push_back(fixed(run.other_sources_scale, 3));
      row.push_back(std::to_string(run.other_sources_runs));
      row.push_back(signed_percent(run.other_sources->error));
    } else {
      for (const char* cell : {"-", "-", "-"}) row.emplace_back(cell);
    }
    table.add_row(row);
  }
  table.print(std::cout, format);
}

void print_table(const replay::TrainingCrossValidation& result, const std::string& network) {
  std::cout << "# ctwin validate --training --calibrated, network " << network
            << ": each dense run predicted with the training_time_scale fitted on its GPU's other dense runs "
               "(leave one out) and, where its GPU has some, with the scale fitted on its GPU's dense runs of other sources; "
               "MoE runs with the scale of all its GPU's dense runs; error = predicted / measured - 1\n";
  print_rows(result, Format::kTable);
  std::cout << "\n# per GPU: training_time_scale fitted on all its dense runs\n";
  Table gpus({"gpu", "dense runs", "scale", "rounds"});
  for (const auto& g : result.gpus) {
    gpus.add_row({g.gpu, std::to_string(g.dense_runs), g.dense_runs > 0 ? fixed(g.scale, 3) : "-", std::to_string(g.rounds)});
  }
  gpus.print(std::cout, Format::kTable);
  for (const bool dense_only : {false, true}) {
    std::cout << "\n# by group, " << (dense_only ? "dense runs" : "every run") << ": |error|\n";
    Table summary({"group", "runs", "uncalibrated median", "max", "calibrated runs", "median", "max",
                   "other-source runs", "median", "max"});
    for (const auto& [group, errors] : api::cross_validation_errors_by_group(result, dense_only)) {
      std::vector<std::string> row{group};
      for (const ErrorStats& s : {errors.uncalibrated, errors.calibrated, errors.other_sources}) {
        row.push_back(std::to_string(s.count));
        row.push_back(s.count > 0 ? percent(s.median_abs) : "-");
        row.push_back(s.count > 0 ? percent(s.max_abs) : "-");
      }
      summary.add_row(row);
    }
    summary.print(std::cout, Format::kTable);
  }
}

}  // namespace

replay::CalibrationProgress terminal_calibration_progress() {
  if (isatty(fileno(stderr)) == 0) return {};
  return [](const replay::CalibrationStep& step) {
    switch (step.kind) {
      case replay::CalibrationStep::Kind::kRound:
        std::cerr << step.gpu << ": round " << step.round << ", scale " << fixed(step.scale, 4)
                  << ", geometric-mean error " << signed_percent(step.geometric_mean_error) << '\n';
        break;
      case replay::CalibrationStep::Kind::kHeldOut:
        std::cerr << "held-out runs: " << step.simulations << " simulations\n";
        break;
    }
  };
}

void print_cross_validation(const replay::TrainingCrossValidation& result, const std::string& network, Format format) {
  if (format == Format::kJson) {
    std::cout << json_text(api::training_cross_validation_json(result, network), 2) << '\n';
  } else if (format == Format::kCsv) {
    print_rows(result, Format::kCsv);
  } else {
    print_table(result, network);
  }
}

}  // namespace ctwin::cli
