#include "ctwin/core/error_stats.hpp"
#include "ctwin/validation/training_validation.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "ctwin/compute/gpu_spec.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/core/path_checks.hpp"
#include "ctwin/replay/step_figures.hpp"

namespace ctwin::api {
namespace {

using replay::Figure;
// What a training case's row shows of its predicted step beside the measured metric.
constexpr replay::FigureSet kTrainingCaseFigures{Figure::kStepTime,   Figure::kModelTflopsPerGpu,
                                                 Figure::kHardwareTflopsPerGpu, Figure::kMfu,
                                                 Figure::kCommRatio,  Figure::kBubble, Figure::kFitsMemory};

// Profiles in `folder` stand in for the cases' profiles with the same name (the datasheet name a
// calibrated profile keeps from its base). Returns the names replaced.
std::vector<std::string> use_profiles(const std::string& folder, const std::string& field, replay::TrainingCases& cases) {
  if (folder.empty()) return {};
  const std::filesystem::path dir = resolve_data_path(folder);
  if (!is_folder_path(dir)) throw InputError(field, "", "no folder " + folder);
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

TrainingValidation load_training_validation(const TrainingValidationRequest& request,
                                            const std::filesystem::path& repo_root) {
  TrainingValidation out;
  out.cases = replay::load_training_cases(resolve_data_path(request.cases), repo_root);
  out.replaced = use_profiles(request.profiles, request.profiles_field, out.cases);
  for (const auto& c : out.cases.cases) {
    bool match = request.only.empty();
    for (const auto& text : request.only) match = match || c.id.find(text) != std::string::npos;
    if (match) out.chosen.push_back(&c);
  }
  if (out.chosen.empty()) throw InputError(request.only_field, "", "no case of " + request.cases + " matches");
  return out;
}

void run_training_validation(TrainingValidation& validation, const TrainingValidationRequest& request) {
  validation.results = replay::validate_training(validation.chosen, request.network, request.progress, request.jobs);
}

TrainingValidation validate_training(const TrainingValidationRequest& request, const std::filesystem::path& repo_root) {
  TrainingValidation out = load_training_validation(request, repo_root);
  run_training_validation(out, request);
  return out;
}

std::string training_split_text(const replay::Scenario& s, const replay::StepReport& r) {
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

namespace {

std::string training_metric_unit(replay::TrainingMetric metric) {
  switch (metric) {
    case replay::TrainingMetric::kHardwareTflopsPerGpu: return "hw TFLOP/s";
    case replay::TrainingMetric::kModelTflopsPerGpu: return "model TFLOP/s";
    case replay::TrainingMetric::kTokensPerSPerGpu: return "tok/s";
    case replay::TrainingMetric::kMfu: return "MFU";
  }
  return "";
}

}  // namespace

std::vector<ComparisonRow> training_comparison_rows(const TrainingValidation& validation) {
  std::vector<ComparisonRow> rows;
  rows.reserve(validation.results.size());
  for (const auto& r : validation.results) {
    const auto& c = *r.training_case;
    ComparisonRow row;
    row.case_id = c.id;
    row.role = c.group;
    row.metric = replay::metric_name(c.metric);
    row.measured = c.measured;
    row.predicted = r.predicted;
    row.error = r.error;
    row.labels = {std::to_string(c.scenario.gpus), training_split_text(c.scenario, r.report),
                  training_metric_unit(c.metric), r.report.fits_memory ? "yes" : "NO"};
    row.figures = {r.report.mfu};
    if (c.metric == replay::TrainingMetric::kMfu) {
      row.display_scale = 100;
      row.display_suffix = " %";
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

const std::vector<ComparisonColumn>& training_comparison_columns() {
  using F = ComparisonField;
  static const std::vector<ComparisonColumn> kColumns{
      {"id", "id", F::kCase},
      {"group", "group", F::kRole},
      {"gpus", "", F::kLabel, 0},
      {"split", "split", F::kLabel, 1},
      {"metric", "metric", F::kMetric},
      {"measured", "measured", F::kMeasured, 0, 4, false},
      {"predicted", "predicted", F::kPredicted, 0, 4, false},
      {"error", "error", F::kErrorFraction, 0, 4},
  };
  return kColumns;
}

const std::vector<ComparisonColumn>& training_table_columns() {
  using F = ComparisonField;
  static const std::vector<ComparisonColumn> kColumns{
      {"case", "", F::kCase},
      {"GPUs", "", F::kLabel, 0},
      {"split", "", F::kLabel, 1},
      {"metric", "", F::kLabel, 2},
      {"measured", "", F::kMeasured, 0, 1},
      {"predicted", "", F::kPredicted, 0, 1},
      {"error", "", F::kErrorPercent},
      {"MFU", "", F::kFigure, 0, 1, true, "", 100, " %"},
      {"fits", "", F::kLabel, 3},
  };
  return kColumns;
}

nlohmann::json training_validation_json(const TrainingValidation& validation, const std::string& network) {
  nlohmann::json rows = comparison_rows_json(training_comparison_columns(), training_comparison_rows(validation));
  for (std::size_t i = 0; i < validation.results.size(); ++i) {
    const auto& r = validation.results[i];
    const auto& c = *r.training_case;
    nlohmann::json row = replay::to_json(replay::figures_of(r.report), kTrainingCaseFigures);
    row.update(rows[i]);
    row.update({{"gpus", c.scenario.gpus}, {"source", c.source}});
    rows[i] = std::move(row);
  }
  nlohmann::json groups = nlohmann::json::object();
  const replay::TrainingErrors errors = replay::training_errors(validation.results);
  for (const auto& [group, stats] : errors.by_group) groups[group] = error_stats_json(stats, "count");
  nlohmann::json others = nlohmann::json::array();
  for (const auto& n : validation.cases.not_expressible) {
    others.push_back({{"id", n.id}, {"group", n.group}, {"reason", n.reason}});
  }
  return {{"network", network},
          {"cases", rows},
          {"summary", error_stats_json(errors.all, "count")},
          {"groups", groups},
          {"not_expressible", others}};
}

}  // namespace ctwin::api
