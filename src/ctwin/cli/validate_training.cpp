// ctwin validate --training: published training runs replayed by `ctwin run` and compared with
// what the sources measured (library: replay/training_validation). This file only lays out the
// results: per case, per group, and the runs that cannot be expressed.

#include "ctwin/cli/validate_training.hpp"

#include <unistd.h>

#include <cstdio>

#include <iostream>
#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "ctwin/cli/fabric_options.hpp"
#include "ctwin/cli/output.hpp"
#include "ctwin/compute/gpu_spec.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/replay/training_validation.hpp"

namespace ctwin::cli {

std::string value_text(replay::TrainingMetric metric, double v) {
  return metric == replay::TrainingMetric::kMfu ? fixed(100 * v, 1) + " %" : fixed(v, 1);
}

namespace {

std::string split_of(const replay::Scenario& s, const replay::StepReport& r) {
  std::ostringstream text;
  text << "tp" << s.split.tp << " pp" << s.split.pp;
  if (s.split.vpp > 1) text << " vpp" << s.split.vpp;
  if (s.model.has_moe) text << " ep" << s.split.ep;
  if (s.split.expert_tp > 1) text << " etp" << s.split.expert_tp;
  text << " dp" << r.dp << " mb" << s.split.micro_batch << " x" << r.micro_batches << " "
       << workload::precision_name(s.split.precision) << " rc-" << workload::recompute_name(s.split.recompute);
  if (s.split.zero_stage() > 0) text << " zero" << s.split.zero_stage();
  return text.str();
}

std::string unit_of(replay::TrainingMetric metric) {
  switch (metric) {
    case replay::TrainingMetric::kHardwareTflopsPerGpu: return "hw TFLOP/s";
    case replay::TrainingMetric::kModelTflopsPerGpu: return "model TFLOP/s";
    case replay::TrainingMetric::kTokensPerSPerGpu: return "tok/s";
    case replay::TrainingMetric::kMfu: return "MFU";
  }
  return "";
}

using replay::ErrorStats;
using replay::TrainingComparison;

std::map<std::string, std::vector<double>> errors_by_group(const std::vector<TrainingComparison>& results) {
  std::map<std::string, std::vector<double>> groups;
  for (const auto& r : results) groups[r.training_case->group].push_back(r.error);
  return groups;
}

std::vector<double> all_errors(const std::vector<TrainingComparison>& results) {
  std::vector<double> errors;
  for (const auto& r : results) errors.push_back(r.error);
  return errors;
}

nlohmann::json stats_json(const ErrorStats& s) {
  return {{"count", s.count}, {"median_abs_error", s.median_abs}, {"max_abs_error", s.max_abs}};
}

void print_table(const std::vector<TrainingComparison>& results, const replay::TrainingCases& cases,
                 const std::string& network, std::ostream& out) {
  out << "# ctwin validate --training: predicted vs published training throughput per GPU, network " << network
      << "; error = predicted / measured - 1\n";
  Table table({"case", "GPUs", "split", "metric", "measured", "predicted", "error", "MFU", "fits"});
  for (const auto& r : results) {
    const auto& c = *r.training_case;
    table.add_row({c.id, std::to_string(c.scenario.gpus), split_of(c.scenario, r.report), unit_of(c.metric),
                   value_text(c.metric, c.measured), value_text(c.metric, r.predicted), signed_percent(r.error),
                   fixed(100 * r.report.mfu, 1) + " %", r.report.fits_memory ? "yes" : "NO"});
  }
  table.print(out, Format::kTable);
  out << "\n# by group: |error|\n";
  Table summary({"group", "cases", "median", "max"});
  for (const auto& [group, errors] : errors_by_group(results)) {
    const auto s = replay::error_stats(errors);
    summary.add_row({group, std::to_string(s.count), fixed(100 * s.median_abs, 1) + "%", fixed(100 * s.max_abs, 1) + "%"});
  }
  const auto total = replay::error_stats(all_errors(results));
  summary.add_row({"all", std::to_string(total.count), fixed(100 * total.median_abs, 1) + "%",
                   fixed(100 * total.max_abs, 1) + "%"});
  summary.print(out, Format::kTable);
  out << "\n# not expressible: " << cases.not_expressible.size() << " runs of " << cases.runs_file << "\n";
  // One line each: the reasons are sentences, too long for an aligned column.
  for (const auto& n : cases.not_expressible) out << "  " << n.id << ": " << n.reason << "\n";
}

void print_json(const std::vector<TrainingComparison>& results, const replay::TrainingCases& cases,
                const std::string& network, std::ostream& out) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& r : results) {
    const auto& c = *r.training_case;
    rows.push_back({{"id", c.id},
                    {"group", c.group},
                    {"gpus", c.scenario.gpus},
                    {"split", split_of(c.scenario, r.report)},
                    {"metric", replay::metric_name(c.metric)},
                    {"measured", c.measured},
                    {"predicted", r.predicted},
                    {"error", r.error},
                    {"step_time_s", r.report.step_time_s},
                    {"model_tflops_per_gpu", r.report.model_tflops_per_gpu},
                    {"hardware_tflops_per_gpu", r.report.hardware_tflops_per_gpu},
                    {"mfu", r.report.mfu},
                    {"comm_ratio", r.report.comm_ratio},
                    {"bubble_s", r.report.breakdown.bubble_s},
                    {"fits_memory", r.report.fits_memory},
                    {"source", c.source}});
  }
  nlohmann::json groups = nlohmann::json::object();
  for (const auto& [group, errors] : errors_by_group(results)) groups[group] = stats_json(replay::error_stats(errors));
  nlohmann::json others = nlohmann::json::array();
  for (const auto& n : cases.not_expressible) others.push_back({{"id", n.id}, {"group", n.group}, {"reason", n.reason}});
  out << nlohmann::json{{"network", network},
                        {"cases", rows},
                        {"summary", stats_json(replay::error_stats(all_errors(results)))},
                        {"groups", groups},
                        {"not_expressible", others}}
             .dump(2)
      << '\n';
}

void print_csv(const std::vector<TrainingComparison>& results, std::ostream& out) {
  Table table({"id", "group", "gpus", "split", "metric", "measured", "predicted", "error"});
  for (const auto& r : results) {
    const auto& c = *r.training_case;
    table.add_row({c.id, c.group, std::to_string(c.scenario.gpus), split_of(c.scenario, r.report),
                   replay::metric_name(c.metric), fixed(c.measured, 4), fixed(r.predicted, 4), fixed(r.error, 4)});
  }
  table.print(out, Format::kCsv);
}

// Profiles in `folder` stand in for the cases' profiles with the same name (the datasheet name a
// calibrated profile keeps from its base). Returns the names replaced.
std::vector<std::string> use_profiles(const std::string& folder, replay::TrainingCases& cases) {
  if (folder.empty()) return {};
  const std::filesystem::path dir = resolve_data_path(folder);
  if (!std::filesystem::is_directory(dir)) throw InputError("--profiles", "", "no folder " + folder);
  std::map<std::string, compute::GpuSpec> by_name;
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& file : files) {
    compute::GpuSpec gpu = compute::load_gpu_spec(file);
    const std::string name = gpu.name;
    if (!by_name.emplace(name, std::move(gpu)).second) {
      throw InputError(file.string(), "/name", "a second profile named '" + name + "' in " + folder);
    }
  }
  std::set<std::string> replaced;
  for (auto& c : cases.cases) {
    const auto found = by_name.find(c.scenario.gpu.name);
    if (found == by_name.end()) continue;
    c.scenario.gpu = found->second;
    replaced.insert(found->first);
  }
  return {replaced.begin(), replaced.end()};
}


}  // namespace

void run_training_validation(const TrainingValidateOptions& options) {
  const Format format = parse_format(options.format);
  const network::ModelKind network = step_network(options.network);
  auto cases = replay::load_training_cases(resolve_data_path(options.cases), CTWIN_DATA_DIR);
  const std::vector<std::string> replaced = use_profiles(options.profiles, cases);
  std::vector<const replay::TrainingCase*> chosen;
  for (const auto& c : cases.cases) {
    bool match = options.only.empty();
    for (const auto& text : options.only) match = match || c.id.find(text) != std::string::npos;
    if (match) chosen.push_back(&c);
  }
  if (chosen.empty()) throw InputError("--only", "", "no case of " + options.cases + " matches");
  // Progress on a terminal only: the flow network takes minutes, and stdout may be a pipe to a parser.
  replay::TrainingProgress progress;
  if (isatty(fileno(stderr)) != 0) {
    progress = [](std::size_t i, std::size_t n, const replay::TrainingCase& c) {
      std::cerr << "\r\033[K[" << i + 1 << "/" << n << "] " << c.id << std::flush;
      if (i + 1 == n) std::cerr << '\n';
    };
  }
  if (options.calibrated) {
    if (!options.profiles.empty()) {
      throw InputError("--profiles", "", "--calibrated fits its own training_time_scale; give one or the other");
    }
    print_cross_validation(chosen, options.network, options.jobs, options.format);
    return;
  }
  const auto results = replay::validate_training(chosen, network, progress, options.jobs);
  if (format == Format::kJson) {
    print_json(results, cases, options.network, std::cout);
  } else if (format == Format::kCsv) {
    print_csv(results, std::cout);
  } else {
    if (format == Format::kTable && !options.profiles.empty()) {
      std::cout << "# GPU profiles from " << options.profiles << ":";
      for (const auto& name : replaced) std::cout << " " << name << ";";
      std::cout << (replaced.empty() ? " none matched a case's GPU" : "") << "\n";
    }
    print_table(results, cases, options.network, std::cout);
  }
}

}  // namespace ctwin::cli
