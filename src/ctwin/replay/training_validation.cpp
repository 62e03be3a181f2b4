#include "ctwin/replay/training_validation.hpp"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <set>
#include <utility>

#include "ctwin/core/error.hpp"
#include "ctwin/core/json_reader.hpp"
#include "ctwin/core/parallel_for.hpp"
#include "ctwin/replay/training_step.hpp"

namespace ctwin::replay {
namespace {

namespace fs = std::filesystem;

constexpr std::pair<TrainingMetric, const char*> kMetricNames[] = {
    {TrainingMetric::kHardwareTflopsPerGpu, "hardware_tflops_per_gpu"},
    {TrainingMetric::kModelTflopsPerGpu, "model_tflops_per_gpu"},
    {TrainingMetric::kTokensPerSPerGpu, "tokens_per_s_per_gpu"},
    {TrainingMetric::kMfu, "mfu"},
};

TrainingMetric metric_from(JsonObjectReader& measured) {
  std::vector<std::string> names;
  for (const auto& [metric, name] : kMetricNames) names.emplace_back(name);
  const std::string chosen = measured.choice("metric", names);
  for (const auto& [metric, name] : kMetricNames) {
    if (chosen == name) return metric;
  }
  measured.fail("metric", "unreachable: choice() accepted '" + chosen + "'");
}

/// Ids must be unique across cases and not-expressible runs: each published run is counted once.
void claim_id(std::set<std::string>& seen, const std::string& id, const JsonObjectReader& entry) {
  if (!seen.insert(id).second) entry.fail("id", "run '" + id + "' appears more than once in the file");
}

TrainingCase read_case(const nlohmann::json& entry, const std::string& file, const std::string& pointer,
                       const fs::path& dir, const fs::path& repo_root) {
  JsonObjectReader reader(entry, file, pointer);
  TrainingCase c;
  c.id = reader.string("id");
  c.group = reader.string("group");
  c.source = reader.string("source");
  auto measured = reader.object("measured");
  c.metric = metric_from(measured);
  // An upper bound keeps a typo (a percentage as MFU, a total as a per-GPU figure) from passing.
  const double max = c.metric == TrainingMetric::kMfu ? 1.0 : 1e7;
  c.measured = measured.number("value", 0, max);
  if (!(c.measured > 0)) measured.fail("value", "must be positive");
  c.conversion = measured.string("conversion");
  measured.finish();
  c.assumptions = reader.string_list_or_empty("assumptions");
  const nlohmann::json& scenario = reader.required("scenario");
  c.scenario = parse_scenario(scenario, file + " " + pointer + "/scenario", dir, repo_root);
  reader.finish();
  return c;
}

NotExpressibleRun read_not_expressible(const nlohmann::json& entry, const std::string& file,
                                       const std::string& pointer) {
  JsonObjectReader reader(entry, file, pointer);
  NotExpressibleRun run{reader.string("id"), reader.string("group"), reader.string("source"), reader.string("reason")};
  if (run.reason.empty()) reader.fail("reason", "a run that cannot be expressed needs its reason");
  reader.finish();
  return run;
}

}  // namespace

std::string metric_name(TrainingMetric metric) {
  for (const auto& [m, name] : kMetricNames) {
    if (m == metric) return name;
  }
  CTWIN_ASSERT(false, "every TrainingMetric has a name");
  return {};
}

TrainingCases load_training_cases(const fs::path& path, const fs::path& repo_root) {
  const std::string file = path.string();
  const nlohmann::json document = load_json_file(path);
  if (!document.is_object()) throw InputError(file, "", "a training cases file is a JSON object");
  const fs::path dir = path.parent_path().empty() ? fs::path(".") : path.parent_path();
  JsonObjectReader reader(document, file, "");
  (void)reader.string("description");
  TrainingCases out;
  out.runs_file = reader.string("runs_file");
  std::set<std::string> seen;
  const auto& cases = reader.required("cases");
  if (!cases.is_array()) reader.fail("cases", "expected an array of cases");
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const std::string pointer = "/cases/" + std::to_string(i);
    out.cases.push_back(read_case(cases[i], file, pointer, dir, repo_root));
    claim_id(seen, out.cases.back().id, JsonObjectReader(cases[i], file, pointer));
  }
  const auto& others = reader.required("not_expressible");
  if (!others.is_array()) reader.fail("not_expressible", "expected an array of {id, group, source, reason}");
  for (std::size_t i = 0; i < others.size(); ++i) {
    const std::string pointer = "/not_expressible/" + std::to_string(i);
    out.not_expressible.push_back(read_not_expressible(others[i], file, pointer));
    claim_id(seen, out.not_expressible.back().id, JsonObjectReader(others[i], file, pointer));
  }
  reader.finish();
  return out;
}

double predicted_metric(TrainingMetric metric, const StepReport& report, std::int64_t gpus) {
  switch (metric) {
    case TrainingMetric::kHardwareTflopsPerGpu: return report.hardware_tflops_per_gpu;
    case TrainingMetric::kModelTflopsPerGpu: return report.model_tflops_per_gpu;
    case TrainingMetric::kTokensPerSPerGpu: return report.tokens_per_s / static_cast<double>(gpus);
    case TrainingMetric::kMfu: return report.mfu;
  }
  CTWIN_ASSERT(false, "every TrainingMetric is handled");
  return 0;
}

namespace {

TrainingComparison compare(const TrainingCase& c, const std::optional<network::ModelKind>& network) {
  Scenario scenario = c.scenario;
  if (network) scenario.network = *network;
  TrainingComparison comparison;
  comparison.training_case = &c;
  try {
    comparison.report = simulate_step(scenario).report;
  } catch (const InputError& e) {
    // The case file promised this run is expressible; say which case broke that promise.
    throw InputError(e.source(), e.pointer(), "case " + c.id + ": " + e.message());
  }
  comparison.predicted = predicted_metric(c.metric, comparison.report, scenario.gpus);
  comparison.error = comparison.predicted / c.measured - 1;
  CTWIN_ASSERT(std::isfinite(comparison.error), "a simulated step has a finite, positive throughput");
  return comparison;
}

}  // namespace

std::vector<TrainingComparison> validate_training(const std::vector<const TrainingCase*>& chosen,
                                                  const std::optional<network::ModelKind>& network,
                                                  const TrainingProgress& progress, unsigned jobs) {
  std::vector<TrainingComparison> out(chosen.size());
  std::mutex progress_mutex;
  std::size_t done = 0;
  parallel_for(chosen.size(), jobs, [&](std::size_t i) {
    out[i] = compare(*chosen[i], network);
    if (progress) {
      const std::lock_guard lock(progress_mutex);
      progress(done++, chosen.size(), *chosen[i]);
    }
  });
  return out;
}

TrainingErrors training_errors(const std::vector<TrainingComparison>& results) {
  std::map<std::string, std::vector<double>> by_group;
  std::vector<double> all;
  for (const auto& r : results) {
    by_group[r.training_case->group].push_back(r.error);
    all.push_back(r.error);
  }
  TrainingErrors out;
  for (auto& [group, errors] : by_group) out.by_group[group] = error_stats(std::move(errors));
  out.all = error_stats(std::move(all));
  return out;
}

}  // namespace ctwin::replay
