#include "ctwin/validation/run_validation.hpp"

#include <cstdio>
#include <filesystem>
#include <utility>

#include "ctwin/api/data_dir.hpp"
#include "ctwin/api/evaluate.hpp"
#include "ctwin/api/scenario.hpp"
#include "ctwin/calibration/megatron_log.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/core/input_file.hpp"
#include "ctwin/core/json_reader.hpp"
#include "ctwin/core/units.hpp"
#include "ctwin/core/path_checks.hpp"
#include "ctwin/replay/step_figures.hpp"

namespace ctwin::api {
namespace {

namespace fs = std::filesystem;

// A path in the run file: next to it first, then as given or under data_dir().
std::string locate(const std::string& given, const fs::path& dir) {
  const fs::path p(given);
  if (p.is_relative() && is_file_path(dir / p)) return (dir / p).string();
  return resolve_data_path(given).string();
}

RunPrediction prediction_of(const StepResult& result, double measured_step_s) {
  RunPrediction prediction;
  prediction.calibration = result.scenario.calibration;
  prediction.report = result.step.report;
  prediction.tokens_per_s_per_gpu = prediction.report.tokens_per_s / static_cast<double>(result.scenario.gpus);
  prediction.error = measured_step_s / prediction.report.step_time_s - 1;
  return prediction;
}

}  // namespace

RunValidation validate_run(const std::string& file, const std::string& calibration, EvalContext& context) {
  const fs::path path = resolve_data_path(file);
  const nlohmann::json document = load_json_file(path);
  const std::string source = path.string();
  if (!document.is_object()) throw InputError(source, "", "expected a measured run object");
  const fs::path dir = path.parent_path().empty() ? fs::path(".") : path.parent_path();
  JsonObjectReader reader(document, source, "");
  RunValidation v;
  v.source = source;
  v.description = reader.string_or("description", "");

  const nlohmann::json& scenario_doc = reader.required("scenario");
  Scenario scenario = scenario_doc.is_string() ? Scenario::load(locate(scenario_doc.get<std::string>(), dir))
                      : scenario_doc.is_object()
                          ? Scenario::from_json(scenario_doc, source + " /scenario")
                          : throw InputError(source, "/scenario", "expected a scenario file or an inline scenario");
  scenario = scenario.with_assignments(reader.string_list_or_empty("set"));

  std::string file_calibration;
  if (const auto* given = reader.optional("calibration"); given != nullptr && !given->is_null()) {
    if (!given->is_string()) throw InputError(source, "/calibration", "expected a calibration file or null");
    file_calibration = locate(given->get<std::string>(), dir);
    if (!is_file_path(file_calibration)) {
      throw InputError(source, "/calibration", "no calibration file '" + given->get<std::string>() + "'");
    }
  }

  auto measured = reader.object("measured");
  const int given_count = int(measured.has("step_time")) + int(measured.has("tokens_per_s_per_gpu")) +
                          int(measured.has("tokens_per_s")) + int(measured.has("megatron_log"));
  if (given_count != 1) {
    reader.fail("measured", "give exactly one of step_time, tokens_per_s_per_gpu, tokens_per_s, megatron_log");
  }
  // The prediction fixes the tokens per step and the GPUs; the measurement in any unit becomes a step time.
  // The uncalibrated row ignores a calibration the scenario itself names.
  const StepResult plain = evaluate(scenario.with("calibration", nullptr), context);
  const double tokens_per_step = plain.step.report.tokens_per_s * plain.step.report.step_time_s;
  const auto gpus = static_cast<double>(plain.scenario.gpus);
  constexpr double kMostTokensPerS = 1e12;  // far above any cluster: a typo, not a run
  if (measured.has("step_time")) {
    v.measured_as = "step_time";
    v.measured_step_time_s = measured.duration_up_to("step_time", SimTime::from_seconds(86400.0)).seconds();
    if (v.measured_step_time_s <= 0) measured.fail("step_time", "must be positive");
  } else if (measured.has("megatron_log")) {
    v.measured_as = "megatron_log";
    const std::string log_path = locate(measured.string("megatron_log"), dir);
    const std::int64_t warmup = measured.integer_or("warmup_iterations", 0, std::int64_t{1} << 40, 10);
    const calibration::MegatronMeasurement m = calibration::measure_megatron_log(
        calibration::parse_megatron_log(read_input_file(log_path), log_path), warmup, log_path);
    if (m.global_batch && *m.global_batch != plain.scenario.split.global_batch) {
      measured.fail("megatron_log", "the log's global batch size " + std::to_string(*m.global_batch) +
                                        " is not the scenario's " + std::to_string(plain.scenario.split.global_batch));
    }
    v.megatron_log = MegatronLogSummary{log_path, warmup, m.intervals, m.tflops_per_gpu};
    v.measured_step_time_s = m.step_time_s;
  } else if (measured.has("tokens_per_s_per_gpu")) {
    v.measured_as = "tokens_per_s_per_gpu";
    v.measured_step_time_s = tokens_per_step / (measured.number("tokens_per_s_per_gpu", 1e-6, kMostTokensPerS) * gpus);
  } else {
    v.measured_as = "tokens_per_s";
    v.measured_step_time_s = tokens_per_step / measured.number("tokens_per_s", 1e-6, kMostTokensPerS);
  }
  measured.finish();
  reader.finish();
  v.measured_tokens_per_s_per_gpu = tokens_per_step / v.measured_step_time_s / gpus;
  // The model's FLOPs per step are the twin's, whatever it predicts for time: a measurement that
  // puts them above the GPUs' peak is a typo (a step of 1e-9 s printed 1.6e13 tokens/s per GPU;
  // issue 36).
  const double measured_mfu = plain.step.report.mfu * plain.step.report.step_time_s / v.measured_step_time_s;
  if (!(measured_mfu <= 1)) {
    char text[200];
    std::snprintf(text, sizeof text,
                  "means %.4g s per step, an MFU of %.3g%% of %s's peak: faster than the GPUs can run the model",
                  v.measured_step_time_s, 100 * measured_mfu, plain.scenario.gpu.name.c_str());
    throw InputError(source, "/measured/" + v.measured_as, text);
  }

  v.model = plain.scenario.model.name;
  v.gpu = plain.scenario.gpu.name;
  v.cluster = plain.scenario.cluster.name;
  v.gpus = plain.scenario.gpus;
  v.uncalibrated = prediction_of(plain, v.measured_step_time_s);
  const std::string chosen = calibration.empty() ? file_calibration : calibration;
  if (!chosen.empty()) {
    const std::string origin = calibration.empty() ? source + " /calibration" : "--calibration";
    v.calibrated = prediction_of(evaluate(with_calibration(scenario, chosen, origin), context), v.measured_step_time_s);
  }
  return v;
}

nlohmann::json run_validation_json(const RunValidation& v) {
  using replay::Figure;
  const auto row = [](const RunPrediction& p) {
    replay::StepFigures figures = replay::figures_of(p.report);
    figures.tokens_per_s_per_gpu = p.tokens_per_s_per_gpu;
    nlohmann::json out = replay::to_json(figures, {Figure::kStepTime, Figure::kTokensPerSPerGpu, Figure::kMfu});
    out["error"] = p.error;
    if (!p.calibration.empty()) out["calibration"] = p.calibration;
    return out;
  };
  replay::StepFigures measured;
  measured.step_time_s = v.measured_step_time_s;
  measured.tokens_per_s_per_gpu = v.measured_tokens_per_s_per_gpu;
  nlohmann::json measured_json = replay::to_json(measured, {Figure::kStepTime, Figure::kTokensPerSPerGpu});
  measured_json["given_as"] = v.measured_as;
  nlohmann::json out{{"run", v.source},
                     {"description", v.description},
                     {"model", v.model},
                     {"gpu", v.gpu},
                     {"cluster", v.cluster},
                     {"gpus", v.gpus},
                     {"measured", measured_json},
                     {"uncalibrated", row(v.uncalibrated)}};
  if (v.megatron_log) {
    const MegatronLogSummary& log = *v.megatron_log;
    out["measured"]["megatron_log"] = {
        {"file", log.file},
        {"warmup_iterations", log.warmup_iterations},
        {"intervals", log.intervals},
        {"tflops_per_gpu", log.tflops_per_gpu ? nlohmann::json(*log.tflops_per_gpu) : nlohmann::json(nullptr)}};
  }
  out["calibrated"] = v.calibrated ? row(*v.calibrated) : nlohmann::json(nullptr);
  return out;
}

}  // namespace ctwin::api
