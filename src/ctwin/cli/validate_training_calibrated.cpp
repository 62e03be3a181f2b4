// ctwin validate --training --calibrated: each published run predicted as the bundled profiles
// predict it and with a training_time_scale fitted on its GPU's other dense runs (library:
// replay/training_calibration). This file only lays the results out.

#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <map>

#include <nlohmann/json.hpp>

#include "ctwin/cli/output.hpp"
#include "ctwin/cli/validate_training.hpp"
#include "ctwin/replay/training_calibration.hpp"

namespace ctwin::cli {
namespace {

using replay::CrossValidatedRun;

std::string percent(double fraction) { return fixed(100 * fraction, 1) + " %"; }

struct Errors {
  std::vector<double> uncalibrated;
  std::vector<double> calibrated;
  std::vector<double> other_sources;
};

// Groups of the cases file and "all"; the calibrated list holds the runs that have a fit.
std::map<std::string, Errors> errors_by_group(const std::vector<CrossValidatedRun>& runs, bool dense_only) {
  std::map<std::string, Errors> groups;
  for (const auto& run : runs) {
    if (dense_only && !run.dense) continue;
    for (const std::string& key : {run.training_case->group, std::string("all")}) {
      groups[key].uncalibrated.push_back(run.uncalibrated.error);
      if (run.calibrated) groups[key].calibrated.push_back(run.calibrated->error);
      if (run.other_sources) groups[key].other_sources.push_back(run.other_sources->error);
    }
  }
  return groups;
}

nlohmann::json stats_json(const std::vector<double>& errors) {
  const auto s = replay::error_stats(errors);
  return {{"count", s.count}, {"median_abs_error", s.median_abs}, {"max_abs_error", s.max_abs}};
}

void print_json(const replay::TrainingCrossValidation& result, const std::string& network) {
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
    for (const auto& [group, errors] : errors_by_group(result.runs, dense_only)) {
      groups[group] = {{"uncalibrated", stats_json(errors.uncalibrated)},
                       {"calibrated", stats_json(errors.calibrated)},
                       {"other_sources", stats_json(errors.other_sources)}};
    }
    summary[dense_only ? "dense" : "every_run"] = groups;
  }
  std::cout << nlohmann::json{{"network", network}, {"cases", rows}, {"gpus", gpus}, {"summary", summary}}.dump(2) << '\n';
}

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
    for (const auto& [group, errors] : errors_by_group(result.runs, dense_only)) {
      std::vector<std::string> row{group};
      for (const auto* list : {&errors.uncalibrated, &errors.calibrated, &errors.other_sources}) {
        const auto s = replay::error_stats(*list);
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

void print_cross_validation(const std::vector<const replay::TrainingCase*>& chosen, const std::string& network,
                            unsigned jobs, const std::string& format_text) {
  const Format format = parse_format(format_text);
  const auto result = replay::cross_validate_training(chosen, step_network(network), jobs, terminal_calibration_progress());
  if (format == Format::kJson) {
    print_json(result, network);
  } else if (format == Format::kCsv) {
    print_rows(result, Format::kCsv);
  } else {
    print_table(result, network);
  }
}

}  // namespace ctwin::cli
