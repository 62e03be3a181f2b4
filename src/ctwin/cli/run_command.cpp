// ctwin run: one training step of a scenario, as a table, JSON (DESIGN.md report fields) and
// optionally a Chrome/Perfetto trace.

#include <fstream>
#include <iostream>
#include <memory>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "ctwin/cli/commands.hpp"
#include "ctwin/cli/fabric_options.hpp"
#include "ctwin/cli/output.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/replay/training_step.hpp"

namespace ctwin::cli {
namespace {

struct RunOptions {
  std::string scenario;
  std::string network;
  std::vector<std::string> overrides;
  std::string format = "table";
  std::string trace;
  std::string comm = "auto";
  bool all_ranks = false;
  bool require_fit = false;
  std::vector<std::string> degrade;
};

replay::CommModel parse_comm(const std::string& name) {
  if (name == "auto") return replay::CommModel::kAuto;
  if (name == "isolated") return replay::CommModel::kIsolated;
  if (name == "shared") return replay::CommModel::kShared;
  throw InputError("--comm", "", "unknown communication model '" + name + "' (expected auto, isolated or shared)");
}

nlohmann::json report_json(const replay::Scenario& s, const replay::StepReport& r) {
  const auto& b = r.breakdown;
  const auto& m = r.memory_gib_per_gpu;
  nlohmann::json out{
      {"scenario", s.source},
      {"model", s.model.name},
      {"cluster", s.cluster.name},
      {"gpu", s.gpu.name},
      {"gpus", s.gpus},
      {"network", s.network},
      {"parallel", {{"tp", s.split.tp}, {"pp", s.split.pp}, {"vpp", s.split.vpp}, {"cp", s.split.cp}, {"ep", s.split.ep},
                    {"dp", r.dp}, {"micro_batches", r.micro_batches},
                    {"schedule", workload::schedule_name(s.split.schedule)}}},
      {"step_time_s", r.step_time_s},
      {"tokens_per_s", r.tokens_per_s},
      {"model_tflops_per_gpu", r.model_tflops_per_gpu},
      {"hardware_tflops_per_gpu", r.hardware_tflops_per_gpu},
      {"mfu", r.mfu},
      {"comm_ratio", r.comm_ratio},
      {"model_flops_per_step", r.model_flops_per_step},
      {"hardware_flops_per_step", r.hardware_flops_per_step},
      {"breakdown",
       {{"compute_s", b.compute_s},
        {"exposed_comm_s",
         {{"tp", b.exposed_comm_s.tp}, {"pp", b.exposed_comm_s.pp}, {"dp", b.exposed_comm_s.dp}, {"cp", b.exposed_comm_s.cp},
          {"ep", b.exposed_comm_s.ep}}},
        {"bubble_s", b.bubble_s},
        {"optimizer_s", b.optimizer_s}}},
      {"memory_gib_per_gpu",
       {{"weights", m.weights}, {"grads", m.grads}, {"optimizer", m.optimizer}, {"activations", m.activations},
        {"other", m.other}, {"total", m.total}}},
      {"memory_pipeline_stage", r.memory_stage},
      {"memory_total_gib_per_stage", r.memory_total_gib_per_stage},
      {"fits_memory", r.fits_memory},
      {"events", r.events}};
  if (s.model.has_moe) out["parallel"]["expert_tp"] = s.split.expert_tp;  // dense reports keep their bytes
  return out;
}

const char* stream_name(replay::Stream s) {
  switch (s) {
    case replay::Stream::kCompute: return "compute";
    case replay::Stream::kTp: return "tp";
    case replay::Stream::kPp: return "pp";
    case replay::Stream::kDp: return "dp";
    case replay::Stream::kCp: return "cp";
    case replay::Stream::kEp: return "ep";
  }
  return "compute";
}

/// Chrome trace format ("X" complete events, microseconds): one process per pipeline rank, one
/// thread per stream; opens in chrome://tracing and ui.perfetto.dev.
void write_trace(const std::string& path, const replay::ReplayResult& replay) {
  nlohmann::json events = nlohmann::json::array();
  for (std::size_t r = 0; r < replay.ranks.size(); ++r) {
    const std::size_t per_stage = static_cast<std::size_t>(replay.ranks_per_stage);
    const std::string name = per_stage == 1 ? "pipeline rank " + std::to_string(r)
                                            : "stage " + std::to_string(r / per_stage) + " rank " + std::to_string(r % per_stage);
    events.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", r}, {"args", {{"name", name}}}});
    for (int s = 0; s < replay::kStreams; ++s) {
      events.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", r}, {"tid", s},
                        {"args", {{"name", stream_name(static_cast<replay::Stream>(s))}}}});
    }
    for (const auto& b : replay.ranks[r].busy) {
      nlohmann::json e{{"name", b.name}, {"ph", "X"}, {"pid", r}, {"tid", static_cast<int>(b.stream)},
                       {"ts", b.start.microseconds()}, {"dur", (b.end - b.start).microseconds()}};
      if (b.micro_batch >= 0) {
        e["args"] = {{"pass", b.forward ? "forward" : "backward"}, {"chunk", b.chunk}, {"micro_batch", b.micro_batch}};
      }
      events.push_back(std::move(e));
    }
  }
  std::ofstream out(path);
  if (!out) throw InputError("--trace", "", "cannot write '" + path + "'");
  out << nlohmann::json{{"traceEvents", events}, {"displayTimeUnit", "ms"}}.dump() << '\n';
  if (!out) throw InputError("--trace", "", "cannot write '" + path + "'");
}

void print_table(const replay::Scenario& s, const replay::SimulatedStep& step) {
  const auto& r = step.report;
  const auto& b = r.breakdown;
  std::cout << s.model.name << " on " << s.gpus << " x " << s.gpu.name << " (" << s.cluster.name << "), network "
            << s.network << (step.shared_fabric ? ", communication on one shared fabric" : ", each collective alone")
            << "\n";
  // cp only when used, so that reports without CP read as before.
  const std::string cp = s.split.cp > 1 ? ", cp " + std::to_string(s.split.cp) + " (" +
                                              workload::cp_comm_name(s.split.cp_comm) + ")"
                                        : "";
  std::cout << "split: tp " << s.split.tp << ", pp " << s.split.pp << ", vpp " << s.split.vpp << cp << ", dp " << r.dp << ", "
            << r.micro_batches << " micro-batches of " << s.split.micro_batch << " x " << s.split.seq_len << " tokens, "
            << workload::schedule_name(s.split.schedule) << ", recompute " << workload::recompute_name(s.split.recompute)
            << ", zero " << s.split.zero_stage();
  if (s.model.has_moe) std::cout << ", ep " << s.split.ep << ", expert_tp " << s.split.expert_tp;
  std::cout << "\n";
  Table t({"metric", "value"});
  t.add_row({"step time", fixed(r.step_time_s, 4) + " s"});
  t.add_row({"tokens/s", fixed(r.tokens_per_s, 0)});
  t.add_row({"model TFLOP/s per GPU", fixed(r.model_tflops_per_gpu, 1)});
  t.add_row({"hardware TFLOP/s per GPU", fixed(r.hardware_tflops_per_gpu, 1)});
  t.add_row({"MFU", fixed(100 * r.mfu, 1) + " %"});
  t.add_row({"exposed comm / step", fixed(100 * r.comm_ratio, 1) + " %"});
  t.print(std::cout, Format::kTable, "  ");
  std::cout << "step breakdown (mean over pipeline ranks):\n";
  Table parts({"part", "seconds", "% of step"});
  const auto row = [&](const std::string& name, double v) {
    parts.add_row({name, fixed(v, 4), fixed(100 * v / r.step_time_s, 1)});
  };
  row("compute", b.compute_s);
  row("exposed tp", b.exposed_comm_s.tp);
  row("exposed pp", b.exposed_comm_s.pp);
  row("exposed dp", b.exposed_comm_s.dp);
  if (s.split.cp > 1) row("exposed cp", b.exposed_comm_s.cp);
  if (s.model.has_moe) row("exposed ep", b.exposed_comm_s.ep);  // dense tables keep their rows
  row("bubble", b.bubble_s);
  row("optimizer", b.optimizer_s);
  parts.print(std::cout, Format::kTable, "  ");
  const auto& m = r.memory_gib_per_gpu;
  std::cout << "memory per GPU (GiB, pipeline stage " << r.memory_stage << "): weights " << fixed(m.weights, 1) << ", grads " << fixed(m.grads, 1)
            << ", optimizer " << fixed(m.optimizer, 1) << ", activations " << fixed(m.activations, 1) << ", other "
            << fixed(m.other, 1) << ", total " << fixed(m.total, 1) << " of " << fixed(static_cast<double>(s.gpu.hbm_capacity.count()) / (1 << 30), 1)
            << ": " << (r.fits_memory ? "fits" : "does NOT fit") << "\n";
}

}  // namespace

Action add_run_command(CLI::App& app) {
  auto* command = app.add_subcommand("run", "Predict one training step of a scenario");
  auto o = std::make_shared<RunOptions>();
  command->add_option("scenario", o->scenario, "scenario file (scenarios/*.json)")->required();
  command->add_option("--network", o->network, "analytical or flow (default: the scenario's)");
  command->add_option("--set", o->overrides, "override a scenario field: parallel.tp=4 (repeatable)");
  command->add_option("--format", o->format, "table or json")->capture_default_str();
  command->add_option("--trace", o->trace, "write a Chrome/Perfetto trace JSON of the simulated ranks to FILE");
  command->add_option("--comm", o->comm,
                      "auto, isolated or shared: collectives alone on the fabric, or every op's traffic on one flow "
                      "simulation of the cluster (auto: shared with --network flow)")
      ->capture_default_str();
  command->add_flag("--require-fit", o->require_fit,
                    "exit 2 with the memory breakdown when the split does not fit in the GPU's memory "
                    "(by default it is reported as fits_memory: false)");
  command->add_option("--degrade", o->degrade, "a slow part: gpu:RANK=SPEED, e.g. gpu:123=0.8 (repeatable)");
  command->add_flag("--all-ranks", o->all_ranks, "simulate every rank instead of one per pipeline stage (slow; checks the symmetry reduction)");
  return [o] {
    const Format format = parse_format(o->format);
    if (format == Format::kCsv) throw InputError("--format", "", "ctwin run prints table or json");
    std::vector<std::string> overrides = o->overrides;
    if (!o->network.empty()) {
      check_step_network(o->network);
      overrides.push_back("network=" + o->network);
    }
    const replay::Scenario scenario = replay::load_scenario(resolve_data_path(o->scenario), CTWIN_DATA_DIR, overrides);
    replay::StepOptions options;
    options.comm = parse_comm(o->comm);
    options.all_ranks = o->all_ranks;
    for (const auto& d : o->degrade) options.slowdowns.push_back(replay::parse_gpu_slowdown(d, "--degrade", scenario.gpus));
    const replay::SimulatedStep step = replay::simulate_step(scenario, options);
    if (o->require_fit && !step.report.fits_memory) {
      const auto& m = step.report.memory_gib_per_gpu;
      throw InputError(scenario.source, "/parallel",
                       "does not fit in memory: " + fixed(m.total, 1) + " GiB per GPU (weights " + fixed(m.weights, 1) +
                           ", grads " + fixed(m.grads, 1) + ", optimizer " + fixed(m.optimizer, 1) + ", activations " +
                           fixed(m.activations, 1) + ", other " + fixed(m.other, 1) + ") of " +
                           fixed(static_cast<double>(scenario.gpu.hbm_capacity.count()) / (1 << 30), 1) + " GiB (--require-fit)");
    }
    if (!o->trace.empty()) write_trace(o->trace, step.replay);
    if (format == Format::kJson) {
      std::cout << report_json(scenario, step.report).dump(2) << '\n';
    } else {
      print_table(scenario, step);
    }
  };
}

}  // namespace ctwin::cli
