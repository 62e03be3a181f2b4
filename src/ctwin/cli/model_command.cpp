// ctwin model: a model's parameters, FLOPs per token and per-GPU memory under a parallel split.

#include <iostream>
#include <memory>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "ctwin/cli/command_pattern.hpp"
#include "ctwin/cli/commands.hpp"
#include "ctwin/cli/fabric_options.hpp"
#include "ctwin/cli/gpu_option.hpp"
#include "ctwin/cli/output.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/core/json_text.hpp"
#include "ctwin/api/public_workload.hpp"

namespace ctwin::cli {
namespace {

struct ModelOptions {
  std::string model;
  std::int64_t tp = 1, pp = 1, vpp = 1, cp = 1, ep = 1, expert_tp = 1;
  std::int64_t first_stage_layers = -1, last_stage_layers = -1;  // -1: even stages
  std::string pipeline_layout;                                    // empty: even stages
  std::string dp = "auto";
  std::int64_t gpus = 0;  // 0: tp·pp·cp·dp
  std::int64_t seq = 4096;
  std::int64_t micro_batch = 1;
  std::int64_t global_batch = 0;  // 0: micro_batch·dp
  std::string recompute = "none";
  int zero = 0;
  std::string schedule;  // empty: interleaved when vpp > 1, else 1f1b
  bool sequence_parallel = false;
  bool distributed_optimizer = false;
  bool grad_reduce_in_fp32 = true;
  std::string precision = "bf16";
  std::string gpu = "h100-sxm";
  std::string format = "table";
};

std::filesystem::path resolve_model_path(const std::string& name_or_path) {
  return api::resolve_named(name_or_path, DataKind::kModel, "--model");
}

std::string choice(const std::string& flag, const std::string& value, std::initializer_list<const char*> allowed) {
  std::string list;
  for (const char* a : allowed) {
    if (value == a) return value;
    list += (list.empty() ? "" : ", ") + std::string(a);
  }
  throw InputError(flag, "", "unknown value '" + value + "' (expected " + list + ")");
}

workload::ParallelConfig split_from(const ModelOptions& o) {
  for (const auto& [flag, value] : {std::pair{"--tp", o.tp}, {"--pp", o.pp}, {"--vpp", o.vpp}, {"--cp", o.cp},
                                    {"--ep", o.ep}, {"--expert-tp", o.expert_tp}, {"--seq", o.seq},
                                    {"--micro-batch", o.micro_batch}}) {
    if (value < 1 || value > (std::int64_t{1} << 30)) {
      throw InputError(flag, "", "must be between 1 and 2^30, got " + std::to_string(value));
    }
  }
  workload::ParallelConfig split;
  split.origin = {"flags", true};
  split.tp = o.tp;
  split.pp = o.pp;
  split.vpp = o.vpp;
  for (const auto& [flag, value] : {std::pair{"--first-stage-layers", o.first_stage_layers},
                                    {"--last-stage-layers", o.last_stage_layers}}) {
    if (value < -1 || value > (std::int64_t{1} << 30)) throw InputError(flag, "", "must be a layer count");
  }
  if (o.first_stage_layers >= 0) split.first_stage_layers = o.first_stage_layers;
  if (o.last_stage_layers >= 0) split.last_stage_layers = o.last_stage_layers;
  if (!o.pipeline_layout.empty()) {
    const workload::ParsedLayout layout = workload::parse_pipeline_layout(o.pipeline_layout);
    if (layout.error) throw InputError("--pipeline-layout", "", *layout.error);
    split.pipeline_layout = layout.layers;
  }
  split.cp = o.cp;
  split.ep = o.ep;
  split.expert_tp = o.expert_tp;
  if (o.dp != "auto") {
    try {
      std::size_t used = 0;
      const long long dp = std::stoll(o.dp, &used);
      if (used != o.dp.size() || dp < 1) throw std::invalid_argument("bad");
      split.dp = dp;
    } catch (const std::exception&) {
      throw InputError("--dp", "", "expected 'auto' or a positive integer, got '" + o.dp + "'");
    }
  }
  split.seq_len = o.seq;
  split.micro_batch = o.micro_batch;
  split.sequence_parallel = o.sequence_parallel;
  split.distributed_optimizer = o.distributed_optimizer;
  split.grad_reduce_in_fp32 = o.grad_reduce_in_fp32;
  if (o.zero < 0 || o.zero > 3) throw InputError("--zero", "", "expected 0, 1, 2 or 3, got " + std::to_string(o.zero));
  split.zero = o.zero;
  split.recompute = *workload::recompute_from_name(choice("--recompute", o.recompute, {"none", "selective", "full"}));
  const std::string schedule =
      o.schedule.empty() ? (o.vpp > 1 ? "interleaved" : "1f1b") : choice("--schedule", o.schedule, {"gpipe", "1f1b", "interleaved"});
  split.schedule = *workload::schedule_from_name(schedule);
  split.precision = *workload::precision_from_name(choice("--precision", o.precision, {"bf16", "fp16", "fp8"}));
  return split;
}

double gib(Bytes b) { return static_cast<double>(b.count()) / (1 << 30); }

void declare_model_options(CLI::App& command, ModelOptions& o) {
  command.add_option("--model", o.model, "model file (ctwin format or Hugging Face config.json) or a name under models/llm")
      ->required();
  command.add_option("--tp", o.tp, "tensor-parallel size")->capture_default_str();
  command.add_option("--pp", o.pp, "pipeline-parallel size")->capture_default_str();
  command.add_option("--vpp", o.vpp, "model chunks per pipeline rank (interleaved schedule)")->capture_default_str();
  command.add_option("--first-stage-layers", o.first_stage_layers,
                      "layers on the first pipeline stage (uneven stages; the rest split evenly)");
  command.add_option("--last-stage-layers", o.last_stage_layers, "layers on the last pipeline stage (uneven stages)");
  command.add_option("--pipeline-layout", o.pipeline_layout,
                      "layers per virtual stage in Megatron's layout syntax, e.g. \"Et*3|(tt|)*29|tL\"");
  command.add_option("--cp", o.cp, "context-parallel size")->capture_default_str();
  command.add_option("--ep", o.ep, "expert-parallel size")->capture_default_str();
  command.add_option("--expert-tp", o.expert_tp, "tensor-parallel size inside experts")->capture_default_str();
  command.add_option("--dp", o.dp, "data-parallel size or auto (gpus / (tp·pp·cp))")->capture_default_str();
  command.add_option("--gpus", o.gpus, "GPUs in the job (default tp·pp·cp·dp, dp 1 when auto)");
  command.add_option("--seq", o.seq, "sequence length in tokens")->capture_default_str();
  command.add_option("--micro-batch", o.micro_batch, "sequences per micro-batch")->capture_default_str();
  command.add_option("--global-batch", o.global_batch, "sequences per step (default micro-batch·dp)");
  command.add_option("--recompute", o.recompute, "none, selective or full")->capture_default_str();
  command.add_option("--zero", o.zero, "ZeRO stage 0-3 (3 = FSDP)")->capture_default_str();
  command.add_option("--schedule", o.schedule, "gpipe, 1f1b or interleaved (default: interleaved when vpp > 1)");
  command.add_flag("--sp", o.sequence_parallel, "sequence parallelism");
  command.add_flag("--distributed-optimizer", o.distributed_optimizer, "Megatron's distributed optimizer (ZeRO-1)");
  command.add_option("--grad-reduce-in-fp32", o.grad_reduce_in_fp32,
                      "true: fp32 gradient buffers (Megatron-LM's default); false: bf16, as NeMo's performance scripts")
      ->capture_default_str();
  command.add_option("--precision", o.precision, "bf16, fp16 or fp8")->capture_default_str();
  command.add_option("--gpu", o.gpu, "GPU profile for fits_memory: a file or a name under models/gpus")
      ->capture_default_str();
  command.add_option("--format", o.format, "table or json")->capture_default_str();
}

// The query: the model, the split the flags describe on its GPU count, and the profile for fits_memory.
struct ModelCall {
  workload::ModelSpec model;
  workload::ParallelConfig split;
  std::int64_t gpus = 0;
  compute::GpuSpec gpu;
  Format format = Format::kTable;
};

struct ModelFigures {
  workload::ParameterCount params;
  workload::StepFlops flops;
  workload::MemoryBreakdown memory;
  bool fits = false;
};

ModelCall model_call(const ModelOptions& o) {
  const Format format = parse_format(o.format);
  if (format == Format::kCsv) throw InputError("--format", "", "ctwin model prints table or json");
  workload::ModelSpec model = workload::load_model_spec(resolve_model_path(o.model));
  workload::ParallelConfig split = split_from(o);
  if (o.gpus < 0) throw InputError("--gpus", "", "must be positive, got " + std::to_string(o.gpus));
  const std::int64_t gpus = o.gpus > 0 ? o.gpus : workload::gpus_of(split);
  workload::validate_gpus(split, gpus);
  const std::int64_t dp = split.dp.value_or(gpus / (split.tp * split.pp * split.cp));
  if (o.global_batch < 0) throw InputError("--global-batch", "", "must be positive");
  split.global_batch = o.global_batch > 0 ? o.global_batch : split.micro_batch * std::max<std::int64_t>(dp, 1);
  workload::validate(model, split, gpus);
  compute::GpuSpec gpu = load_gpu_option(o.gpu);
  return ModelCall{std::move(model), std::move(split), gpus, std::move(gpu), format};
}

ModelFigures evaluate_model_call(const ModelCall& call) {
  workload::MemoryOptions memory_options;
  memory_options.fp32_gradients = call.split.grad_reduce_in_fp32;
  ModelFigures figures{workload::count_parameters(call.model), workload::step_flops(call.model, call.split),
                       workload::memory_per_gpu(call.model, call.split, call.gpus, memory_options), false};
  figures.fits = workload::fits_memory(figures.memory, call.gpu);
  return figures;
}

void print_model(const ModelFigures& figures, const ModelCall& call, const ModelOptions&) {
  const workload::ModelSpec& model = call.model;
  const workload::ParallelConfig& split = call.split;
  const std::int64_t gpus = call.gpus;
  const compute::GpuSpec& gpu = call.gpu;
  const auto& [params, flops, memory, fits] = figures;
  const std::vector<std::pair<std::string, Bytes>> rows{
      {"weights", memory.weights},         {"gradients", memory.gradients}, {"optimizer", memory.optimizer},
      {"activations", memory.activations}, {"fp8_buffers", memory.fp8_buffers}, {"overhead", memory.overhead},
      {"total", memory.total()}};
  if (call.format == Format::kJson) {
    nlohmann::json mem;
    for (const auto& [name, value] : rows) mem[name] = gib(value);
    nlohmann::json out{{"model", model.name},
                       {"parameters_total", params.total},
                       {"parameters_active", params.active},
                       {"gpus", gpus},
                       {"dp", split.data_parallel(gpus)},
                       {"micro_batches", split.micro_batches(gpus)},
                       {"model_flops_per_token", flops.model_per_token},
                       {"hardware_flops_per_token", flops.hardware_per_token},
                       {"model_flops_per_step", flops.model.count()},
                       {"hardware_flops_per_step", flops.hardware.count()},
                       {"memory_gib_per_gpu", mem},
                       {"memory_stage", memory.stage},
                       {"in_flight_micro_batches", memory.in_flight},
                       {"gpu", gpu.name},
                       {"hbm_gib", gib(gpu.hbm_capacity)},
                       {"fits_memory", fits}};
    std::cout << json_text(out, 2) << '\n';
    return;
  }
  std::cout << model.name << ": " << fixed(static_cast<double>(params.total) * 1e-9, 2) << "B parameters ("
            << fixed(static_cast<double>(params.active) * 1e-9, 2) << "B active), " << model.layers
            << " layers, hidden " << model.hidden << ", " << workload::attention_name(model.attention) << ", "
            << workload::activation_name(model.activation) << "\n";
  std::cout << "split: tp " << split.tp << ", pp " << split.pp << ", vpp " << split.vpp << ", cp " << split.cp
            << ", ep " << split.ep << ", dp " << split.data_parallel(gpus) << " on " << gpus << " GPUs; seq "
            << split.seq_len << ", micro-batch " << split.micro_batch << ", global batch " << split.global_batch
            << " (" << split.micro_batches(gpus) << " micro-batches), " << workload::schedule_name(split.schedule)
            << ", recompute " << workload::recompute_name(split.recompute) << ", zero " << split.zero_stage()
            << ", " << workload::precision_name(split.precision) << "\n";
  std::cout << "FLOPs per token: model " << fixed(flops.model_per_token * 1e-9, 1) << " GFLOP, hardware "
            << fixed(flops.hardware_per_token * 1e-9, 1) << " GFLOP (full attention mask, Megatron convention)\n";
  std::cout << "memory per GPU, pipeline stage " << memory.stage << " (" << fixed(memory.in_flight, 2)
            << " micro-batches in flight), on " << gpu.name << " (" << fixed(gib(gpu.hbm_capacity), 1) << " GiB):\n";
  Table table({"part", "GiB"});
  for (const auto& [name, value] : rows) table.add_row({name, fixed(gib(value), 2)});
  table.print(std::cout, Format::kTable, "  ");
  std::cout << "fits_memory: " << (fits ? "yes" : "no") << "\n";
}

}  // namespace

Action add_model_command(CLI::App& app) {
  return add_command(app, CommandParts<ModelOptions, ModelCall, ModelFigures>{
                              "model", "Parameters, FLOPs per token and per-GPU memory of a model under a split",
                              declare_model_options, model_call, evaluate_model_call, print_model});
}

}  // namespace ctwin::cli
