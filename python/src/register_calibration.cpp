// ctwin._core.gemm, .calibrate_gemm, .calibrate_nccl and .read_nccl_log: the compute twin's
// GEMM times and the fits of a GPU profile and a cluster to measurements.

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "call.hpp"
#include "ctwin/api/calibration_json.hpp"
#include "ctwin/api/compute_eval.hpp"
#include "ctwin/api/data_dir.hpp"
#include "ctwin/api/gpu_profile.hpp"
#include "ctwin/api/profile_scale.hpp"
#include "ctwin/api/public_validation.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/api/public_compute.hpp"
#include "ctwin/core/json_text.hpp"
#include "arguments.hpp"
#include "registry.hpp"

namespace py = pybind11;

namespace ctwin::python {
namespace {

std::vector<compute::GemmShape> shapes_of(std::optional<std::int64_t> m, std::optional<std::int64_t> n,
                                          std::optional<std::int64_t> k, const std::string& dtype,
                                          const std::string& shapes, const compute::GpuSpec& gpu) {
  const bool single = m || n || k;
  if (single && !shapes.empty()) throw InputError("shapes", "", "give either shapes or m, n and k, not both");
  if (!shapes.empty()) return api::read_gemm_shapes(shapes, gpu);
  if (!single) throw InputError("gemm", "", "give m, n and k (and dtype), or shapes=CSV");
  for (const auto& [name, value] : {std::pair{"m", m}, std::pair{"n", n}, std::pair{"k", k}}) {
    if (!value) throw InputError(name, "", "missing: give m, n and k");
    if (*value <= 0) throw InputError(name, "", "must be a positive size, got " + std::to_string(*value));
  }
  compute::GemmShape shape{*m, *n, *k, compute::Dtype::kBf16};
  if (!compute::parse_dtype(dtype, shape.dtype)) {
    throw InputError("dtype", "", "unknown dtype '" + dtype + "' (expected " + compute::dtype_choices() + ")");
  }
  if (const auto problem = compute::gemm_shape_problem(gpu, shape)) throw InputError("m/n/k", "", *problem);
  return {shape};
}

void require(const std::string& value, const std::string& name, const std::string& what) {
  if (value.empty()) throw InputError(name, "", "required: " + what);
}

}  // namespace

void register_calibration(py::module_& m) {
  m.def(
      "gemm",
      [](const std::string& gpu, std::optional<std::int64_t> m, std::optional<std::int64_t> n,
         std::optional<std::int64_t> k, const std::string& dtype, const std::string& shapes) {
        return call_interruptibly([&] {
          const compute::GpuSpec spec = api::load_gpu_option(gpu, "gpu");
          return json_text(api::gemm_json(api::evaluate_gemm(spec, shapes_of(m, n, k, dtype, shapes, spec))));
        });
      },
      py::arg("gpu"), py::arg("m"), py::arg("n"), py::arg("k"), py::arg("dtype"), py::arg("shapes"),
      "Predicted GEMM times as JSON (ctwin gemm --format json).");

  m.def(
      "calibrate_gemm",
      [](const std::string& csv, const std::string& base, const std::string& output, const std::string& holdout) {
        require(csv, "csv", "the measured GEMM sweep");
        require(base, "base", "the GPU profile to calibrate");
        require(output, "output", "where to write the calibrated profile");
        api::GemmCalibrationRequest request{csv, base, output, std::nullopt, "base"};
        if (!holdout.empty()) request.holdout = holdout;
        return call_interruptibly([&] { return json_text(api::gemm_calibration_json(api::calibrate_gemm(request))); });
      },
      py::arg("csv"), py::arg("base"), py::arg("output"), py::arg("holdout"),
      "Fits a GPU profile's GEMM table; the report as JSON (ctwin calibrate --gemm --format json).");

  m.def(
      "calibrate_nccl",
      [](const std::string& cluster, const std::vector<std::string>& logs, const std::string& output, int gpus,
         const std::string& op, const std::string& algorithm, const std::string& protocol, const std::string& network,
         const std::vector<std::string>& holdout) {
        require(cluster, "cluster", "the topology the logs ran on");
        require(output, "output", "where to write the calibration");
        if (logs.empty()) throw InputError("logs", "", "required: at least one nccl-tests log to fit");
        if (gpus < 0) throw InputError("gpus", "", "must not be negative");
        // Checked here so that errors name Python's keywords rather than the CLI's flags.
        if (!op.empty()) (void)collectives::parse_op(op, "op");
        (void)collectives::parse_algorithm(algorithm, "algorithm");
        (void)collectives::parse_protocol(protocol, "protocol");
        api::NcclCalibrationRequest request;
        request.cluster = cluster;
        request.logs = logs;
        request.holdout = holdout;
        request.output = output;
        request.op = op;
        request.gpus = gpus;
        request.algorithm = algorithm;
        request.protocol = protocol;
        request.network = network::parse_model_kind(network, "network", "");
        request.rows = true;
        return call_interruptibly([&] {
          const api::NcclCalibrationResult result = api::calibrate_nccl(request);
          return std::pair{json_text(api::nccl_calibration_result_json(result, request)),
                           json_text(api::nccl_size_rows_json(result))};
        });
      },
      py::arg("cluster"), py::arg("logs"), py::arg("output"), py::arg("gpus"), py::arg("op"), py::arg("algorithm"),
      py::arg("protocol"), py::arg("network"), py::arg("holdout"),
      "Fits a cluster to nccl-tests logs: (report JSON as ctwin calibrate --nccl --format json, per-size rows JSON).");

  m.def(
      "calibrate_layers",
      [](const std::string& layers, const std::string& base, const std::string& output, const std::string& holdout) {
        require(layers, "layers", "the measured layer times");
        require(base, "base", "the GPU profile to calibrate");
        require(output, "output", "where to write the calibrated profile");
        api::LayerCalibrationRequest request{layers, base, output, std::nullopt, "base", "base"};
        if (!holdout.empty()) request.holdout = holdout;
        return call_interruptibly([&] {
          const api::LayerCalibration result = api::calibrate_layers(request);
          return std::pair{json_text(api::layer_calibration_json(result, output)), json_text(api::layer_fit_rows_json(result))};
        });
      },
      py::arg("layers"), py::arg("base"), py::arg("output"), py::arg("holdout"),
      "Fits a GPU profile's training_time_scale to layer times: (report JSON as ctwin calibrate --layers "
      "--format json, per-row JSON).");

  m.def(
      "calibrate_trace",
      [](const std::string& trace, const api::Scenario& scenario, const std::string& base, const std::string& output,
         api::EvalContext& context) {
        require(trace, "trace", "the profiler trace");
        require(base, "base", "the GPU profile to calibrate");
        require(output, "output", "where to write the calibrated profile");
        return call_interruptibly([&] {
          const api::TraceCalibration c = api::calibrate_trace({trace, base, output, "base"}, scenario, context);
          return json_text(api::trace_calibration_json(c, output));
        });
      },
      py::arg("trace"), py::arg("scenario"), py::arg("base"), py::arg("output"), py::arg("context"),
      "Fits a GPU profile's training_time_scale to a profiler trace: report JSON as ctwin calibrate --trace --format json.");

  m.def(
      "calibrate_training",
      [](const std::string& cases, const std::string& base, const std::string& output, const std::string& holdout,
         const std::vector<std::string>& only, const std::string& network, unsigned jobs) {
        require(cases, "cases", "the measured training runs");
        require(base, "base", "the GPU profile to calibrate");
        require(output, "output", "where to write the calibrated profile");
        api::TrainingCalibrationRequest request;
        request.cases = cases;
        request.base = base;
        request.output = output;
        if (!holdout.empty()) request.holdout = holdout;
        request.only = only;
        request.network = step_network_arg(network);
        request.network_name = network;
        request.jobs = jobs == 0 ? 1 : jobs;
        request.cases_field = "cases";
        request.holdout_field = "holdout";
        request.gpu_field = "base";
        request.base_field = "base";
        return call_interruptibly([&] {
          const api::TrainingCalibration result = api::calibrate_training(request);
          return std::pair{json_text(api::training_calibration_json(result, output)),
                           json_text(api::training_calibration_rows_json(result))};
        });
      },
      py::arg("cases"), py::arg("base"), py::arg("output"), py::arg("holdout"), py::arg("only"), py::arg("network"),
      py::arg("jobs"),
      "Fits a GPU profile's training_time_scale to measured runs: (report JSON as ctwin calibrate --training "
      "--format json, per-run JSON).");

  m.def(
      "read_nccl_log",
      [](const std::string& path, const std::string& op) {
        return call_interruptibly([&] {
          std::optional<calibration::NcclOp> given;
          if (!op.empty()) given = collectives::parse_op(op, "op");
          return json_text(api::nccl_log_json(calibration::read_nccl_log(api::resolve_data_path(path), given)));
        });
      },
      py::arg("path"), py::arg("op"), "An nccl-tests log's rows as JSON.");
}

}  // namespace ctwin::python
