#include "ctwin/validation/trace_validation.hpp"

#include <cctype>
#include <filesystem>

#include "ctwin/api/report_json.hpp"
#include "ctwin/core/error.hpp"

namespace ctwin::api {
namespace {

using calibration::KernelClass;
using calibration::TracePhase;
using calibration::TraceSummary;

// Layers × micro-batches one device runs per step, by the scenario: what a ctwin trace's layer rows divide by.
double scenario_layer_passes(const replay::Scenario& s) {
  return static_cast<double>(s.model.layers) / static_cast<double>(s.split.pp) *
         static_cast<double>(s.split.micro_batches(s.gpus));
}

double layer_passes(const TraceSummary& t, const replay::Scenario& s) {
  if (t.format == calibration::TraceFormat::kKineto) return static_cast<double>(t.layers);
  return scenario_layer_passes(s);
}

bool has_layer_phases(const TraceSummary& t) {
  if (t.format == calibration::TraceFormat::kNsysCsv) return false;
  if (t.format == calibration::TraceFormat::kKineto && t.layers == 0) return false;
  return true;
}

// "models/llm/llama3-8b.json", "llama3-8b" and "Llama 3 8B" are one model: the file's stem,
// lower case, letters and digits only.
std::string model_key(const std::string& name) {
  const std::filesystem::path path(name);
  std::string stem = path.extension() == ".json" ? path.stem().string() : name;
  std::string key;
  for (const unsigned char ch : stem) {
    if (std::isalnum(ch)) key += static_cast<char>(std::tolower(ch));
  }
  return key;
}

double per_step(const TraceSummary& t, double us) {
  return us / static_cast<double>(t.devices) / static_cast<double>(t.steps);
}

}  // namespace

TraceValidation validate_trace(const std::string& trace_file, const Scenario& scenario, EvalContext& context,
                               const StepQuery& query) {
  TraceValidation v;
  v.measured = calibration::read_profiler_trace(trace_file);
  v.scenario = scenario.source();
  if (!v.measured.model.empty()) {  // checked before the step is simulated
    const std::string model = scenario.resolve().model.name;
    if (model_key(v.measured.model) != model_key(model)) {
      throw InputError(trace_file, "model", "the trace is of model '" + v.measured.model +
                                                "' (its .meta.json), the scenario's is '" + model + "'");
    }
  }
  const StepResult step = evaluate(scenario, context, query);
  v.model = step.scenario.model.name;
  v.predicted = calibration::summarize_chrome_trace(chrome_trace_json(step.step.replay), "the twin's step of " + v.scenario);
  v.by_phase = has_layer_phases(v.measured);
  v.measured_layers_per_device = v.by_phase ? layer_passes(v.measured, step.scenario) : 0;
  v.predicted_layers_per_device = v.by_phase ? scenario_layer_passes(step.scenario) : 0;
  for (const KernelClass c : calibration::kKernelClasses) {
    const auto add_row = [&](std::string phase, std::string unit, double measured, double predicted) {
      if (measured <= 0 && predicted <= 0) return;
      v.rows.push_back(TraceComparisonRow{c, std::move(phase), std::move(unit), measured, predicted});
    };
    if (v.by_phase) {
      for (const TracePhase p : {TracePhase::kForward, TracePhase::kBackward}) {
        const double measured = v.measured_layers_per_device > 0
                                    ? per_step(v.measured, v.measured.at(c, p).us) / v.measured_layers_per_device
                                    : 0;
        const double predicted = per_step(v.predicted, v.predicted.at(c, p).us) / v.predicted_layers_per_device;
        add_row(calibration::trace_phase_name(p), "us per layer", measured, predicted);
      }
      add_row("outside_layers", "us per step", per_step(v.measured, v.measured.at(c, TracePhase::kOutsideLayers).us),
              per_step(v.predicted, v.predicted.at(c, TracePhase::kOutsideLayers).us));
    } else {
      double measured = 0, predicted = 0;
      for (int p = 0; p < calibration::kTracePhases; ++p) {
        measured += v.measured.at(c, static_cast<TracePhase>(p)).us;
        predicted += v.predicted.at(c, static_cast<TracePhase>(p)).us;
      }
      add_row("step", "us per step", per_step(v.measured, measured), per_step(v.predicted, predicted));
    }
  }
  v.compared = comparison_stats(trace_comparison_rows(v));
  return v;
}

std::vector<ComparisonRow> trace_comparison_rows(const TraceValidation& v) {
  std::vector<ComparisonRow> rows;
  rows.reserve(v.rows.size());
  for (const TraceComparisonRow& r : v.rows) {
    ComparisonRow row;
    row.case_id = std::string(calibration::kernel_class_name(r.kernel_class));
    row.role = r.phase;
    row.metric = r.unit;
    row.measured = r.measured_us;
    row.predicted = r.predicted_us;
    row.compared = r.compared();
    if (row.compared) row.error = r.error();
    rows.push_back(std::move(row));
  }
  return rows;
}

const std::vector<ComparisonColumn>& trace_comparison_columns() {
  using F = ComparisonField;
  static const std::vector<ComparisonColumn> kColumns{
      {"class", "class", F::kCase},
      {"phase", "phase", F::kRole},
      {"unit", "unit", F::kMetric},
      {"measured_us", "measured_us", F::kMeasured, 0, 1},
      {"predicted_us", "predicted_us", F::kPredicted, 0, 1},
      {"error", "error", F::kErrorPercent, 0, 1, true, "not in trace"},
  };
  return kColumns;
}

nlohmann::json trace_validation_json(const TraceValidation& v) {
  const nlohmann::json rows = comparison_rows_json(trace_comparison_columns(), trace_comparison_rows(v));
  nlohmann::json unclassified = nlohmann::json::array();
  for (const auto& k : v.measured.unclassified) unclassified.push_back({{"name", k.name}, {"us", k.us}});
  return {{"trace", v.measured.source},
          {"format", calibration::trace_format_name(v.measured.format)},
          {"scenario", v.scenario},
          {"model", v.model},
          {"devices", v.measured.devices},
          {"steps", v.measured.steps},
          {"trace_layers", v.measured.layers},
          {"layer_passes_per_device", {{"measured", v.measured_layers_per_device}, {"predicted", v.predicted_layers_per_device}}},
          {"by_phase", v.by_phase},
          {"rows", rows},
          {"summary", error_stats_json(v.compared, "rows")},
          {"unclassified", unclassified}};
}

}  // namespace ctwin::api
