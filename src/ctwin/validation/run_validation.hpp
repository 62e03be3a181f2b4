#pragma once
// `ctwin validate --run FILE`: one training run of the user's own, measured, against the twin's
// prediction, uncalibrated and with a calibration (api/scenario.hpp, with_calibration). The file:
//
//   {"description": "Llama 3 8B on our 2 nodes, 2026-11",         (optional)
//    "scenario": "scenarios/default.json" or {an inline scenario},
//    "set": ["parallel.tp=2", ...],                                (optional: changes to it)
//    "measured": {"step_time": "1.92 s"} or {"tokens_per_s_per_gpu": 7400} or {"tokens_per_s": 473600}
//                or {"megatron_log": "train.log", "warmup_iterations": 10}   (Megatron-LM's own log:
//                the median `elapsed time per iteration` after warm-up; calibration/megatron_log.hpp),
//    "calibration": "our-calibration.json"}                        (optional)
//
// Relative paths are tried next to the file, then under data_dir(). error = predicted throughput
// / measured − 1 (as ctwin validate --training), so +10 % means the twin is 10 % optimistic.

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "ctwin/api/eval_context.hpp"
#include "ctwin/replay/step_report.hpp"

namespace ctwin::api {

struct RunPrediction {
  std::string calibration;  ///< the file applied; empty uncalibrated
  replay::StepReport report;
  double tokens_per_s_per_gpu = 0;
  double error = 0;  ///< predicted / measured throughput − 1
};

/// Where a measurement read from a Megatron-LM log came from.
struct MegatronLogSummary {
  std::string file;
  std::int64_t warmup_iterations = 0;
  std::int64_t intervals = 0;                ///< logged intervals the median is over
  std::optional<double> tflops_per_gpu;      ///< Megatron's own count (with recompute), median
};

struct RunValidation {
  std::string source;  ///< the measured-run file
  std::string description;
  std::string model, gpu, cluster;
  std::int64_t gpus = 0;
  std::string measured_as;       ///< "step_time", "tokens_per_s_per_gpu", "tokens_per_s" or "megatron_log"
  std::optional<MegatronLogSummary> megatron_log;
  double measured_step_time_s = 0;
  double measured_tokens_per_s_per_gpu = 0;
  RunPrediction uncalibrated;
  std::optional<RunPrediction> calibrated;
};

/// `calibration` (non-empty) replaces the file's own. InputError naming the file and field, or
/// `--calibration`, on bad input.
[[nodiscard]] RunValidation validate_run(const std::string& file, const std::string& calibration, EvalContext& context);

[[nodiscard]] nlohmann::json run_validation_json(const RunValidation& validation);

}  // namespace ctwin::api
