// ctwin layer: one transformer layer's kernels as the compute twin times them, or, with
// --measured, the twin against layer times a collector measured (validation/collect/layer_bench.py).

#include <iostream>
#include <memory>
#include <variant>

#include <CLI/CLI.hpp>
#include "ctwin/api/layer.hpp"
#include "ctwin/cli/command_pattern.hpp"
#include "ctwin/cli/commands.hpp"
#include "ctwin/cli/fabric_options.hpp"
#include "ctwin/cli/output.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/core/json_text.hpp"
#include "ctwin/api/public_replay.hpp"

namespace ctwin::cli {
namespace {

struct LayerOptions {
  replay::LayerQuery query;
  std::string measured;
  std::string format = "table";
};

void print_kernels(const replay::LayerPrediction& p, Format format) {
  if (format == Format::kJson) {
    std::cout << json_text(api::layer_json(p), 2) << '\n';
    return;
  }
  if (format == Format::kTable) std::cout << p.model_name << ", one layer on " << p.gpu_name << "\n";
  Table table({"kernel", "forward_us", "backward_us"});
  for (const auto& k : p.kernels) table.add_row({k.name, fixed(k.forward_us, 1), fixed(k.backward_us, 1)});
  table.add_row({"total", fixed(p.forward_ms * 1e3, 1), fixed(p.backward_ms * 1e3, 1)});
  table.print(std::cout, format);
}

void print_comparison(const api::LayerComparison& comparison, Format format) {
  if (format == Format::kJson) {
    std::cout << json_text(api::layer_comparison_json(comparison), 2) << '\n';
    return;
  }
  Table table({"model", "seq", "mb", "tp", "precision", "phase", "clock_mhz", "fwd_ms", "pred", "error", "bwd_ms", "pred",
               "error"});
  for (const auto& [m, p, forward_error, backward_error] : comparison.rows) {
    table.add_row({m.model, std::to_string(m.seq_len), std::to_string(m.micro_batch), std::to_string(m.tp), m.precision, m.phase,
                   m.sm_clock_mhz ? fixed(*m.sm_clock_mhz, 0) : "-", fixed(m.forward_ms, 3), fixed(p.forward_ms, 3),
                   signed_percent(forward_error), fixed(m.backward_ms, 3), fixed(p.backward_ms, 3),
                   signed_percent(backward_error)});
  }
  if (format == Format::kTable) {
    std::cout << "# ctwin layer: predicted vs measured layer times (" << comparison.source << ", measured on "
              << comparison.measured_gpu << ", profile " << comparison.gpu_profile
              << "); error = predicted / measured - 1\n";
  }
  table.print(std::cout, format);
}

void declare_layer_options(CLI::App& command, LayerOptions& o) {
  auto& q = o.query;
  command.add_option("--model", q.model, "model file (ctwin format or Hugging Face config.json) or a name under models/llm");
  command.add_option("--gpu", q.gpu, "GPU profile: a file or a name under models/gpus")->capture_default_str();
  command.add_option("--seq", q.seq_len, "sequence length in tokens")->capture_default_str();
  command.add_option("--micro-batch", q.micro_batch, "sequences per micro-batch")->capture_default_str();
  command.add_option("--precision", q.precision, "bf16, fp16 or fp8")->capture_default_str();
  command.add_option("--recompute", q.recompute, "none, selective or full (what the backward re-runs)")
      ->capture_default_str();
  command.add_option("--attention", q.attention, "flash or unfused")->capture_default_str();
  command.add_option("--tp", q.tp, "tensor-parallel size: one rank's share, its collectives left out")
      ->capture_default_str();
  command.add_option("--layer", q.layer, "which layer (0-based; sliding-window and MoE layers differ)")
      ->capture_default_str();
  command.add_option("--stack", q.stack,
                     "software stack: a name under models/stacks or a file; pytorch-eager prices the kernels eager "
                     "PyTorch runs (as layer_bench.py measures them); none: the fused kernels");
  command.add_option("--measured", o.measured,
                     "layer times measured by validation/collect/layer_bench.py (JSON): predict each row on --gpu");
  command.add_option("--format", o.format, "table, json or csv")->capture_default_str();
}

// The query: one layer's kernels, or (with --measured) every measured row predicted.
struct LayerCall {
  replay::LayerQuery query;
  std::string measured;  ///< empty: the kernels of --model
  Format format = Format::kTable;
};

using LayerResult = std::variant<replay::LayerPrediction, api::LayerComparison>;

LayerCall layer_call(const LayerOptions& o) {
  const Format format = parse_format(o.format);
  if (!o.measured.empty()) {
    if (!o.query.model.empty()) throw InputError("--model", "", "with --measured the models come from the file");
  } else if (o.query.model.empty()) {
    throw InputError("--model", "", "give a model (or --measured FILE)");
  }
  return LayerCall{o.query, o.measured, format};
}

LayerResult evaluate_layer_call(const LayerCall& call) {
  if (!call.measured.empty()) return api::compare_layers(call.query, call.measured, CTWIN_DATA_DIR);
  return replay::predict_layer(call.query, CTWIN_DATA_DIR);
}

void print_layer(const LayerResult& result, const LayerCall& call, const LayerOptions&) {
  if (const auto* comparison = std::get_if<api::LayerComparison>(&result)) {
    print_comparison(*comparison, call.format);
  } else {
    print_kernels(std::get<replay::LayerPrediction>(result), call.format);
  }
}

}  // namespace

Action add_layer_command(CLI::App& app) {
  return add_command(app, CommandParts<LayerOptions, LayerCall, LayerResult>{
                              "layer",
                              "One transformer layer's kernel times on a GPU (forward, backward), or against measured "
                              "layer times",
                              declare_layer_options, layer_call, evaluate_layer_call, print_layer});
}

}  // namespace ctwin::cli
