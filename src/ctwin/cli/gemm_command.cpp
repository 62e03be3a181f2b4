// ctwin gemm: predicted GEMM kernel times on a GPU profile, for one shape or a CSV of shapes.

#include <iostream>
#include <memory>

#include <CLI/CLI.hpp>

#include "ctwin/api/calibration_json.hpp"
#include "ctwin/api/compute_eval.hpp"
#include "ctwin/cli/command_pattern.hpp"
#include "ctwin/cli/commands.hpp"
#include "ctwin/cli/fabric_options.hpp"
#include "ctwin/cli/gpu_option.hpp"
#include "ctwin/cli/output.hpp"
#include "ctwin/api/public_compute.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/core/json_text.hpp"

namespace ctwin::cli {
namespace {

struct GemmOptions {
  std::string gpu;
  std::int64_t m = 0;
  std::int64_t n = 0;
  std::int64_t k = 0;
  std::string dtype = "bf16";
  std::string shapes;
  std::string format = "table";
  GivenFlags given;
};

std::vector<compute::GemmShape> requested_shapes(const GemmOptions& options, const compute::GpuSpec& gpu) {
  const bool single = options.given("--m") || options.given("--n") || options.given("--k");
  if (single && !options.shapes.empty()) throw InputError("--shapes", "", "give either --shapes or --m/--n/--k, not both");
  if (!options.shapes.empty()) {
    return api::read_gemm_shapes(options.shapes, gpu);
  }
  if (!single) throw InputError("ctwin gemm", "", "give --m, --n and --k (and --dtype), or --shapes CSV");
  for (const auto& [flag, value] : {std::pair{"--m", options.m}, std::pair{"--n", options.n}, std::pair{"--k", options.k}}) {
    if (value <= 0) throw InputError(flag, "", "must be a positive size, got " + std::to_string(value));
  }
  compute::GemmShape shape{options.m, options.n, options.k, compute::Dtype::kBf16};
  if (!compute::parse_dtype(options.dtype, shape.dtype)) {
    throw InputError("--dtype", "", "unknown dtype '" + options.dtype + "' (expected " + compute::dtype_choices() + ")");
  }
  if (const auto problem = compute::gemm_shape_problem(gpu, shape)) throw InputError("--m/--n/--k", "", *problem);
  return {shape};
}

void declare_gemm_options(CLI::App& command, GemmOptions& o) {
  o.given.attach(command);
  command.add_option("--gpu", o.gpu, "GPU profile: a file or a name under models/gpus (h100-sxm, b200, ...)")->required();
  command.add_option("--m", o.m, "rows of A and C");
  command.add_option("--n", o.n, "columns of B and C");
  command.add_option("--k", o.k, "the inner dimension");
  command.add_option("--dtype", o.dtype, "tf32, bf16, fp16, fp8 or fp4")->capture_default_str();
  command.add_option("--shapes", o.shapes, "CSV with columns m,n,k,dtype (as ctwin calibrate reads)");
  command.add_option("--format", o.format, "table, json or csv")->capture_default_str();
}

// The query: the profile and the shapes to time on it.
struct GemmCall {
  compute::GpuSpec gpu;
  std::vector<compute::GemmShape> shapes;
  Format format = Format::kTable;
};

GemmCall gemm_call(const GemmOptions& o) {
  const Format format = parse_format(o.format);
  compute::GpuSpec gpu = load_gpu_option(o.gpu);
  std::vector<compute::GemmShape> shapes = requested_shapes(o, gpu);
  return GemmCall{std::move(gpu), std::move(shapes), format};
}

api::GemmPrediction evaluate_gemm_call(const GemmCall& call) { return api::evaluate_gemm(call.gpu, call.shapes); }

void print_gemm(const api::GemmPrediction& prediction, const GemmCall& call, const GemmOptions&) {
  if (call.format == Format::kJson) {
    std::cout << json_text(api::gemm_json(prediction), 2) << '\n';
    return;
  }
  Table table({"m", "n", "k", "dtype", "time_us", "tflops", "model"});
  for (const auto& [shape, estimate] : prediction.rows) {
    const double tflops = estimate.rate().teraflops();
    table.add_row({std::to_string(shape.m), std::to_string(shape.n), std::to_string(shape.k),
                   compute::dtype_name(shape.dtype), fixed(estimate.time.microseconds(), 3), fixed(tflops, 1),
                   compute::gemm_source_name(estimate.source)});
  }
  if (call.format == Format::kTable) std::cout << "GEMM on " << call.gpu.name << "\n";
  table.print(std::cout, call.format, call.format == Format::kTable ? "  " : "");
}

}  // namespace

Action add_gemm_command(CLI::App& app) {
  return add_command(app, CommandParts<GemmOptions, GemmCall, api::GemmPrediction>{
                              "gemm", "Predicted GEMM kernel time and TFLOP/s on a GPU profile", declare_gemm_options,
                              gemm_call, evaluate_gemm_call, print_gemm});
}

}  // namespace ctwin::cli
