// ctwin validate --training: published training runs replayed by `ctwin run` and compared with
// what the sources measured (library: replay/training_validation). This file only lays out the
// results: per case, per group, and the runs that cannot be expressed.

#include "ctwin/core/error_stats.hpp"
#include "ctwin/cli/validate_training.hpp"

#include <unistd.h>

#include <cstdio>

#include <iostream>
#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

#include "ctwin/api/public_validation.hpp"
#include "ctwin/cli/fabric_options.hpp"
#include "ctwin/cli/comparison_output.hpp"
#include "ctwin/cli/figure_output.hpp"
#include "ctwin/cli/output.hpp"
#include "ctwin/api/public_compute.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/core/json_text.hpp"
#include "ctwin/api/public_replay.hpp"

namespace ctwin::cli {

std::string value_text(replay::TrainingMetric metric, double v) {
  return metric == replay::TrainingMetric::kMfu ? fixed(100 * v, 1) + " %" : fixed(v, 1);
}

namespace {

using replay::TrainingComparison;

void print_table(const api::TrainingValidation& validation, const std::string& network, std::ostream& out) {
  const std::vector<TrainingComparison>& results = validation.results;
  const replay::TrainingCases& cases = validation.cases;
  out << "# ctwin validate --training: predicted vs published training throughput per GPU, network " << network
      << "; error = predicted / measured - 1\n";
  comparison_table(api::training_table_columns(), api::training_comparison_rows(validation)).print(out, Format::kTable);
  out << "\n# by group: |error|\n";
  Table summary({"group", "cases", "median", "max"});
  const replay::TrainingErrors errors = replay::training_errors(results);
  for (const auto& [group, s] : errors.by_group) {
    summary.add_row({group, std::to_string(s.count), fixed(100 * s.median_abs, 1) + "%", fixed(100 * s.max_abs, 1) + "%"});
  }
  const ErrorStats& total = errors.all;
  summary.add_row({"all", std::to_string(total.count), fixed(100 * total.median_abs, 1) + "%",
                   fixed(100 * total.max_abs, 1) + "%"});
  summary.print(out, Format::kTable);
  out << "\n# not expressible: " << cases.not_expressible.size() << " runs of " << cases.runs_file << "\n";
  // One line each: the reasons are sentences, too long for an aligned column.
  for (const auto& n : cases.not_expressible) out << "  " << n.id << ": " << n.reason << "\n";
}

}  // namespace

void check_training_options(const TrainingValidateOptions& options) {
  if (!options.calibrated) return;
  if (!options.profiles.empty()) {
    throw InputError("--profiles", "", "--calibrated fits its own training_time_scale; give one or the other");
  }
  if (!options.figure.empty()) throw InputError("--figure", "", "draws --training without --calibrated");
}

TrainingValidationResult evaluate_training_validation(const TrainingValidateOptions& options) {
  const network::ModelKind network = step_network(options.network);
  api::TrainingValidationRequest request;
  request.cases = options.cases;
  request.only = options.only;
  request.network = network;
  request.profiles = options.profiles;
  request.jobs = options.jobs;
  if (options.calibrated) {
    auto loaded = std::make_unique<const api::TrainingValidation>(api::load_training_validation(request, CTWIN_DATA_DIR));
    replay::TrainingCrossValidation result =
        replay::cross_validate_training(loaded->chosen, network, options.jobs, terminal_calibration_progress());
    return CrossValidatedTraining{std::move(loaded), std::move(result)};
  }
  api::TrainingValidation validation = api::load_training_validation(request, CTWIN_DATA_DIR);
  // Progress on a terminal only: the flow network takes minutes, and stdout may be a pipe to a parser.
  if (isatty(fileno(stderr)) != 0) {
    request.progress = [](std::size_t i, std::size_t n, const replay::TrainingCase& c) {
      std::cerr << "\r\033[K[" << i + 1 << "/" << n << "] " << c.id << std::flush;
      if (i + 1 == n) std::cerr << '\n';
    };
  }
  api::run_training_validation(validation, request);
  return TrainingValidationResult(std::move(validation));
}

void print_training_validation(const TrainingValidationResult& result, const TrainingValidateOptions& options) {
  const Format format = parse_format(options.format);
  if (const auto* cross = std::get_if<CrossValidatedTraining>(&result)) {
    print_cross_validation(cross->result, options.network, format);
    return;
  }
  const api::TrainingValidation& validation = std::get<api::TrainingValidation>(result);
  if (!options.figure.empty()) write_figure("validate", api::training_validation_json(validation, options.network), options.figure);
  if (format == Format::kJson) {
    std::cout << json_text(api::training_validation_json(validation, options.network), 2) << '\n';
  } else if (format == Format::kCsv) {
    comparison_table(api::training_comparison_columns(), api::training_comparison_rows(validation)).print(std::cout, Format::kCsv);
  } else {
    if (format == Format::kTable && !options.profiles.empty()) {
      std::cout << "# GPU profiles from " << options.profiles << ":";
      for (const auto& name : validation.replaced) std::cout << " " << name << ";";
      std::cout << (validation.replaced.empty() ? " none matched a case's GPU" : "") << "\n";
    }
    print_table(validation, options.network, std::cout);
  }
}

}  // namespace ctwin::cli
