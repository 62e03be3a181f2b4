// ctwin run: one training step of a scenario, as a table, JSON (the report fields of docs/training-step.md) and
// optionally a Chrome/Perfetto trace.

#include <iostream>
#include <memory>

#include <CLI/CLI.hpp>
#include "ctwin/api/evaluate.hpp"
#include "ctwin/api/build_warnings.hpp"
#include "ctwin/api/error_band.hpp"
#include "ctwin/api/report_json.hpp"
#include "ctwin/cli/warnings_output.hpp"
#include "ctwin/cli/command_pattern.hpp"
#include "ctwin/cli/commands.hpp"
#include "ctwin/cli/error_band_output.hpp"
#include "ctwin/cli/fabric_options.hpp"
#include "ctwin/cli/figure_output.hpp"
#include "ctwin/cli/json_csv.hpp"
#include "ctwin/cli/output.hpp"
#include "ctwin/cli/placement_option.hpp"
#include "ctwin/cli/progress_line.hpp"
#include "ctwin/cli/step_flags.hpp"
#include "ctwin/cli/routing_option.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/core/json_text.hpp"
#include "ctwin/api/public_replay.hpp"

namespace ctwin::cli {
namespace {

struct RunOptions {
  std::string scenario;
  std::string placement;
  std::string network;
  std::string routing;
  std::vector<std::string> overrides;
  std::string calibration;
  std::string format = "table";
  std::string table;
  std::string trace;
  std::string figure;
  std::string comm = "auto";
  bool all_ranks = false;
  std::string flow_sample = "full";
  bool require_fit = false;
  std::vector<std::string> degrade;
};

void print_table(const replay::Scenario& s, const replay::SimulatedStep& step, const analysis::ErrorBands& bands) {
  const auto& r = step.report;
  const auto& b = r.breakdown;
  std::cout << s.model.name << " on " << s.gpus << " x " << s.gpu.name << " (" << s.cluster.name << "), network "
            << network::name(s.network) << (step.shared_fabric ? ", communication on one shared fabric" : ", each collective alone")
            << (step.flow_sample_gpus > 0 ? " (approximate: " + std::to_string(step.flow_sample_gpus) +
                                                " GPUs of each stage on it, --flow-sample " +
                                                replay::flow_sample_name(step.flow_sample) + ")"
                                          : std::string())
            << "\n";
  if (!s.calibration.empty()) std::cout << "calibrated by " << s.calibration << "\n";
  if (const auto& p = step.placement; !p.identity() || p.named()) {
    std::cout << "placement: " << replay::placement_name(p.policy()) << ", groups of " << p.block()
              << " on " << p.domains() << " NVLink domains of " << p.domain_gpus() << " GPUs, " << p.idle_gpus()
              << " idle, " << p.straddling_blocks() << " groups straddling domains\n";
    if (const auto* f = p.footprint()) {
      std::cout << "  on " << f->nodes << " of a build's " << f->build_nodes << " nodes (" << f->busy_nodes << " busy): "
                << f->leaves << " leaves, " << f->scalable_units << " scalable units";
      if (step.cross_spine_bytes) {
        std::cout << ", " << fixed(static_cast<double>(step.cross_spine_bytes->count()) / 1e9, 2) << " GB of "
                  << fixed(static_cast<double>(step.fabric_bytes.count()) / 1e9, 2) << " GB on the fabric cross a spine";
      }
      std::cout << "\n";
    }
  }
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
  if (!s.pool.groups.empty()) {  // a heterogeneous pool: each stage's groups and layers
    const auto groups = replay::stage_groups(s);
    std::cout << "pool, balance " << (s.pool.balance == replay::PoolBalance::kSpeed ? "speed" : "even") << ":";
    for (std::size_t stage = 0; stage < groups.size(); ++stage) {
      std::cout << (stage == 0 ? " " : "; ") << "stage " << stage << " ";
      for (std::size_t i = 0; i < groups[stage].size(); ++i) std::cout << (i ? "+" : "") << s.pool.groups[groups[stage][i]].name;
      std::cout << " " << s.split.stage_layers(s.model.layers, static_cast<std::int64_t>(stage)) << " layers";
    }
    if (!r.dp_shares.empty()) {  // replicas on kinds of different speed, balanced by speed
      std::cout << "; micro-batches per DP replica";
      for (std::size_t i = 0; i < r.dp_shares.size(); ++i) std::cout << (i ? "/" : " ") << r.dp_shares[i];
    }
    std::cout << "\n";
  }
  const analysis::ErrorBand band = analysis::band_for(bands, analysis::error_band_key(s));
  const auto& c = *band.from;
  Table t({"metric", "value", "p10-p90"});
  t.add_row({"step time", fixed(r.step_time_s, 4) + " s", interval_text(analysis::time_interval(r.step_time_s, c), 4) + " s"});
  t.add_row({"tokens/s", fixed(r.tokens_per_s, 0), interval_text(analysis::throughput_interval(r.tokens_per_s, c), 0)});
  t.add_row({"model TFLOP/s per GPU", fixed(r.model_tflops_per_gpu, 1),
             interval_text(analysis::throughput_interval(r.model_tflops_per_gpu, c), 1)});
  t.add_row({"hardware TFLOP/s per GPU", fixed(r.hardware_tflops_per_gpu, 1), ""});
  t.add_row({"MFU", fixed(100 * r.mfu, 1) + " %", interval_text(analysis::throughput_interval(r.mfu, c), 1, 100) + " %"});
  t.add_row({"exposed comm / step", fixed(100 * r.comm_ratio, 1) + " %", ""});
  t.print(std::cout, Format::kTable, "  ");
  print_band_source(std::cout, band);
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
  if (r.data_pipeline) row("exposed io", b.exposed_io_s);  // tables without a data pipeline keep their rows
  parts.print(std::cout, Format::kTable, "  ");
  if (const auto& io = r.data_pipeline) {
    std::cout << "data loader (" << s.data->tier << ", " << io->reader_nodes << " reading nodes): "
              << fixed(io->loader_s, 4) << " s a step (read " << fixed(io->read_s, 4) << ", metadata "
              << fixed(io->metadata_s, 4) << ", preprocess " << fixed(io->preprocess_s, 4) << "), limit "
              << io->limit << ", cluster read " << fixed(io->cluster_read_Bps * 1e-9, 1) << " of "
              << fixed(io->cluster_read_cap_Bps * 1e-9, 1) << " GB/s\n";
  }
  if (const auto& c = r.checkpoint) {  // tables without a checkpoint keep their lines
    std::cout << "checkpoint (" << s.checkpoint->tier << ", " << replay::to_string(s.checkpoint->mode) << ", every "
              << s.checkpoint->every_steps << " steps): " << fixed(c->size.bytes * 1e-9, 1) << " GB from " << c->size.writer_nodes
              << " nodes, save " << fixed(c->save_s, 3) << " s (limit " << c->limit << "), stall " << fixed(c->stall_s, 3)
              << " s a save, contention " << fixed(c->contention_s, 3) << " s, " << fixed(c->amortised_s, 4)
              << " s a step amortised, load " << fixed(c->load_s, 3) << " s\n";
  }
  const auto& m = r.memory_gib_per_gpu;
  std::cout << "memory per GPU (GiB, pipeline stage " << r.memory_stage << "): weights " << fixed(m.weights, 1) << ", grads " << fixed(m.grads, 1)
            << ", optimizer " << fixed(m.optimizer, 1) << ", activations " << fixed(m.activations, 1) << ", other "
            << fixed(m.other, 1) << ", total " << fixed(m.total, 1) << " of " << fixed(static_cast<double>(s.gpu.hbm_capacity.count()) / (1 << 30), 1)
            << ": " << (r.fits_memory ? "fits" : "does NOT fit") << "\n";
}

// The query: the scenario as the flags change it, and how its step is simulated.
struct RunCall {
  api::Scenario given;
  api::StepQuery step;
  Format format = Format::kTable;
  std::string progress;  ///< what the progress line says while it runs
};

void declare_run_options(CLI::App& command, RunOptions& o) {
  command.add_option("scenario", o.scenario, "scenario file (scenarios/*.json)")->required();
  command.add_option("--network", o.network, "analytical or flow (default: the scenario's)");
  add_routing_option(command, o.routing);
  command.add_option("--calibration", o.calibration,
                     "calibration file (ctwin calibrate --bundle, or --nccl -o): its GPU profile and cluster fit "
                     "replace the scenario's");
  command.add_option("--set", o.overrides, "override a scenario field: parallel.tp=4 (repeatable)");
  add_placement_option(command, o.placement);
  command.add_option("--format", o.format, "table, json or csv (one row, the JSON's fields as dotted columns)")
      ->capture_default_str();
  command.add_option("--table", o.table, "with --format csv: summary (the default)");
  command.add_option("--trace", o.trace, "write a Chrome/Perfetto trace JSON of the simulated ranks to FILE");
  command.add_option("--figure", o.figure, figure_help("the pipeline timeline and the step breakdown"));
  command.add_option("--comm", o.comm,
                     "auto, isolated or shared: collectives alone on the fabric, or every op's traffic on one flow "
                     "simulation of the cluster (auto: shared with --network flow)")
      ->capture_default_str();
  command.add_flag("--require-fit", o.require_fit,
                   "exit 2 with the memory breakdown when the split does not fit in the GPU's memory "
                   "(by default it is reported as fits_memory: false)");
  command.add_option("--degrade", o.degrade, "a degraded part (repeatable): gpu:RANK=SPEED, hbm:RANK=SHARE (HBM bandwidth), nic:RANK=SHARE, link:NAME=SHARE or leaf:ID=uplinks:SHARE (the last three on the shared flow fabric), e.g. gpu:123=0.8");
  command.add_option("--flow-sample", o.flow_sample,
                     "full: every DP replica's traffic on the shared flow fabric (exact); su: only one scalable unit "
                     "of each pipeline stage, standing for the others; replica: only one DP replica (whole nodes) "
                     "of each stage. DP and other groups wider than the sample keep all their traffic. su and "
                     "replica are approximations (error measured in docs/plan.md)")
      ->capture_default_str();
  command.add_flag("--all-ranks", o.all_ranks, "simulate every rank instead of one per pipeline stage (slow; checks the symmetry reduction)");
}

RunCall run_call(const RunOptions& o) {
  const Format format = parse_format(o.format);
  if (!o.table.empty() && format != Format::kCsv) throw InputError("--table", "", "picks a table of --format csv");
  if (!o.figure.empty()) check_figure_path(o.figure);
  const std::vector<std::string> overrides = with_step_flags(o.overrides, {o.placement, o.routing, o.network});
  api::StepQuery step;
  step.comm = api::parse_comm_model(o.comm, "--comm");
  step.all_ranks = o.all_ranks;
  step.flow_sample = replay::parse_flow_sample(o.flow_sample, "--flow-sample");
  step.degrade = o.degrade;
  return RunCall{api::with_calibration(api::Scenario::load(o.scenario), o.calibration).with_assignments(overrides),
                 std::move(step), format, "simulating one step of " + o.scenario};
}

api::StepResult evaluate_run_call(const RunCall& call) {
  api::EvalContext context;
  const ProgressLine line(call.progress);
  return api::evaluate(call.given, context, call.step);
}

void print_run(const api::StepResult& result, const RunCall& call, const RunOptions& o) {
  const replay::Scenario& scenario = result.scenario;
  const replay::SimulatedStep& step = result.step;
  if (o.require_fit && !step.report.fits_memory) {
    const auto& m = step.report.memory_gib_per_gpu;
    throw InputError(scenario.source, "/parallel",
                     "does not fit in memory: " + fixed(m.total, 1) + " GiB per GPU (weights " + fixed(m.weights, 1) +
                         ", grads " + fixed(m.grads, 1) + ", optimizer " + fixed(m.optimizer, 1) + ", activations " +
                         fixed(m.activations, 1) + ", other " + fixed(m.other, 1) + ") of " +
                         fixed(static_cast<double>(scenario.gpu.hbm_capacity.count()) / (1 << 30), 1) + " GiB (--require-fit)");
  }
  if (!o.trace.empty()) write_text_file(o.trace, "--trace", json_text(api::chrome_trace_json(step.replay)) + '\n');
  if (call.format == Format::kJson) {
    std::cout << json_text(api::step_json(call.given, result), 2) << '\n';
  } else if (call.format == Format::kCsv) {
    print_json_csv(std::cout, api::step_json(call.given, result), o.table);
  } else {
    print_table(scenario, step, api::load_bundled_error_bands());
    print_warnings(std::cout, api::step_warnings(scenario));
  }
  if (!o.figure.empty()) {
    nlohmann::json drawn = api::step_json(call.given, result);
    drawn["trace"] = api::chrome_trace_json(step.replay);  // the timeline's intervals
    write_figure("run", drawn, o.figure);
  }
}

}  // namespace

Action add_run_command(CLI::App& app) {
  return add_command(app, CommandParts<RunOptions, RunCall, api::StepResult>{
                              "run", "Predict one training step of a scenario", declare_run_options, run_call,
                              evaluate_run_call, print_run});
}

}  // namespace ctwin::cli
