#pragma once
// Training-step validation: published training runs (validation/training/cases.json, written by
// make_cases.py from training_runs.json) replayed through simulate_step and compared in the unit
// the source published. error = predicted / measured − 1. Nothing here is fitted to the runs.
//
// A cases file holds `cases` (a scenario each, plus the measured metric and its source) and
// `not_expressible` (a run ctwin run cannot express, with the reason), so that every published run
// is accounted for exactly once.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ctwin/core/error_stats.hpp"
#include "ctwin/replay/scenario.hpp"
#include "ctwin/replay/step_report.hpp"

namespace ctwin::replay {

/// What a source published per GPU: hardware TFLOP/s (recompute included, SC'21), model TFLOP/s
/// (no recompute), tokens/s, or MFU (a fraction, not a percentage).
enum class TrainingMetric { kHardwareTflopsPerGpu, kModelTflopsPerGpu, kTokensPerSPerGpu, kMfu };

[[nodiscard]] std::string metric_name(TrainingMetric metric);

struct TrainingCase {
  std::string id;
  std::string group;
  std::string source;
  TrainingMetric metric = TrainingMetric::kHardwareTflopsPerGpu;
  double measured = 0;
  std::string conversion;  ///< how the published number relates to the metric
  std::vector<std::string> assumptions;
  Scenario scenario;
};

struct NotExpressibleRun {
  std::string id;
  std::string group;
  std::string source;
  std::string reason;
};

struct TrainingCases {
  std::string runs_file;  ///< the published runs the cases were made from, as written in the file
  std::vector<TrainingCase> cases;
  std::vector<NotExpressibleRun> not_expressible;
};

/// Reads a cases file strictly (unknown or missing keys, a duplicate id, a bad scenario: InputError
/// naming the file and pointer). Scenario paths resolve against the file's folder, then `repo_root`.
[[nodiscard]] TrainingCases load_training_cases(const std::filesystem::path& path,
                                                const std::filesystem::path& repo_root);

struct TrainingComparison {
  const TrainingCase* training_case = nullptr;
  StepReport report;
  double predicted = 0;  ///< in the case's metric
  double error = 0;      ///< predicted / measured − 1
};

/// The prediction of `report` in `metric` for a step on `gpus` GPUs.
[[nodiscard]] double predicted_metric(TrainingMetric metric, const StepReport& report, std::int64_t gpus);

/// Runs every case of `chosen` (network overridden when `network` is set), `jobs` at a time on
/// threads of their own (each case is a separate simulation; results keep the order of `chosen`
/// whatever the jobs). Throws InputError, naming the case, when a case's scenario cannot be
/// simulated: the first such case in `chosen` order.
/// Called, one call at a time, when a case finishes: cases done so far, the number of cases, the case.
using TrainingProgress = std::function<void(std::size_t, std::size_t, const TrainingCase&)>;

[[nodiscard]] std::vector<TrainingComparison> validate_training(const std::vector<const TrainingCase*>& chosen,
                                                                const std::optional<network::ModelKind>& network,
                                                                const TrainingProgress& progress = {},
                                                                unsigned jobs = 1);

/// |error| of the cases per group and over all of them: the summary every front end shows.
struct TrainingErrors {
  std::map<std::string, ErrorStats> by_group;
  ErrorStats all;
};
[[nodiscard]] TrainingErrors training_errors(const std::vector<TrainingComparison>& results);

}  // namespace ctwin::replay
