// ctwin plan: the best splits of a scenario's model on its cluster, as a table, JSON or CSV;
// shards of a plan and their merge.

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <variant>

#include <CLI/CLI.hpp>

#include "ctwin/api/error_band.hpp"
#include "ctwin/api/public_plan.hpp"
#include "ctwin/cli/warnings_output.hpp"
#include "ctwin/cli/command_pattern.hpp"
#include "ctwin/cli/commands.hpp"
#include "ctwin/cli/error_band_output.hpp"
#include "ctwin/cli/figure_output.hpp"
#include "ctwin/cli/output.hpp"
#include "ctwin/cli/phase_progress.hpp"
#include "ctwin/cli/placement_option.hpp"
#include "ctwin/cli/plan_rank_output.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/core/json_reader.hpp"
#include "ctwin/core/json_text.hpp"
#include "ctwin/core/overrides.hpp"
#include "ctwin/core/parallel_for.hpp"

namespace ctwin::cli {
namespace {

struct PlanOptions {
  std::string scenario;
  std::int64_t gpus = 0;
  std::size_t top = 10;
  std::string objective = "throughput";
  std::vector<std::string> fixes;
  std::string placement;
  std::size_t flow_top = 32;
  std::string flow_sample = "full";
  std::string memory_margin = "10%";
  unsigned jobs = default_jobs();
  std::string format = "table";
  std::string shard;
  std::vector<std::string> merge;
  bool exhaustive = false;
  std::string rank_of;
  std::string figure;
  GivenFlags given;
};

// The plan's progress line on stderr, a terminal only: a pipe gets the results alone. The
// returned guard ends a line still open when the plan returns or throws.
struct TerminalProgress {
  std::shared_ptr<PhaseProgress> line;
  std::function<void(const char*, std::size_t, std::size_t)> callback;
  ~TerminalProgress() {
    if (line) std::cerr << line->finish() << std::flush;
  }
};

std::unique_ptr<TerminalProgress> terminal_progress() {
  auto progress = std::make_unique<TerminalProgress>();
  if (isatty(fileno(stderr)) == 0) return progress;
  progress->line = std::make_shared<PhaseProgress>(PhaseProgress::Clock::now());
  progress->callback = [line = progress->line](const char* phase, std::size_t done, std::size_t total) {
    if (const auto text = line->update(phase, done, total, PhaseProgress::Clock::now())) std::cerr << *text << std::flush;
  };
  return progress;
}

// --placement as the JSON value the scenario's "placement" takes (null: the scenario's own).
nlohmann::json plan_placement_value(const std::string& placement) {
  return placement.empty() ? nlohmann::json() : parse_override(placement_assignment(placement), "--placement").value;
}

// "h100>h200 even", "a100>h100 speed 10/10/30/30 dp 2x16/6x16": the groups in the order they take the
// ranks, the balance, the layers per stage and, where unequal, the DP replicas' micro-batches.
std::string pool_text(const api::PlanPoolChoice& pool) {
  std::string text;
  for (const auto& g : pool.order) text += (text.empty() ? "" : ">") + g;
  text += " " + pool.balance;
  for (std::size_t i = 0; i < pool.layers.size(); ++i) text += (i == 0 ? " " : "/") + std::to_string(pool.layers[i]);
  // Unequal DP shares: the replicas' micro-batches in rank order, a run of alike replicas as
  // micro-batches x replicas ("dp 2x16/6x16": 16 replicas on 2, then 16 on 6).
  const auto& shares = pool.dp_micro_batches;
  for (std::size_t i = 0; i < shares.size();) {
    std::size_t run = 1;
    while (i + run < shares.size() && shares[i + run] == shares[i]) ++run;
    text += (i == 0 ? " dp " : "/") + std::to_string(shares[i]) + (run > 1 ? "x" + std::to_string(run) : "");
    i += run;
  }
  return text;
}

std::string optimizer_name(const workload::ParallelConfig& s) {
  if (s.distributed_optimizer) return "distopt";
  return "zero" + std::to_string(s.zero);
}

// The best split as the framework's arguments, one per line: what a launch script takes.
void print_framework_arguments(const api::PlanResult& result, api::FrameworkSyntax syntax) {
  if (result.entries.empty() || !result.entries.front().invalid.empty()) {
    throw InputError("--format", "", "no valid split to print as framework arguments");
  }
  const api::PlanEntry& best = result.entries.front();
  const std::string note = api::calibration_note(result);
  // Comments, so that the output pastes into a launch script as it is.
  std::cout << "# ctwin plan: " << result.model << " on " << result.gpus << " x " << result.gpu << ", rank 1 of "
            << result.survivors << (best.flow ? " (flow)" : " (analytical)") << "\n";
  if (!note.empty()) std::cout << "# " << note << "\n";
  for (const auto& w : result.warnings) std::cout << "# warning: " << w.check << ": " << w.message << "\n";
  for (const auto& argument : api::framework_arguments(best, result.global_batch, syntax)) std::cout << argument << "\n";
}

// The table's header: the problem, the search, how sure the figures are.
void print_plan_header(const api::PlanResult& result) {
  std::cout << result.model << " on " << result.gpus << " x " << result.gpu << " (" << result.cluster
            << "), global batch " << result.global_batch << ", seq " << result.seq_len << ", objective "
            << api::plan_objective_name(result.objective) << ", memory margin " << fixed(100 * result.memory_margin, 0)
            << " % of HBM\n";
  if (!result.placement.is_null()) std::cout << "placement: " << json_text(result.placement, -1) << " (every candidate)\n";
  if (result.pool_assignments > 0) {
    std::cout << "pool: groups";
    for (const auto& g : result.pool_groups) std::cout << ' ' << g;
    std::cout << "; " << result.pool_assignments << " assignments per split (every order of the groups, balance even "
              << "and speed)\n";
  }
  const std::string note = api::calibration_note(result);
  if (!note.empty()) std::cout << "UNCALIBRATED figures: " << note.substr(note.find(": ") + 2) << "\n";
}

void print_plan(const api::PlanResult& result, std::size_t top, Format format) {
  if (format == Format::kJson) {
    std::cout << json_text(api::plan_json(result, top), 2) << '\n';
    return;
  }
  if (format == Format::kTable) {
    print_plan_header(result);
    std::cout << result.enumerated << " candidates, " << result.survivors << " valid and fitting; "
              << (result.exhaustive ? std::string("all replayed")
                                    : std::to_string(result.replayed) + " replayed, the rest ranked out by a step-time lower bound")
              << " on the analytical network, the best " << std::min<std::int64_t>(static_cast<std::int64_t>(result.flow_top), result.survivors)
              << " again on the shared flow fabric"
              << (result.flow_sample == replay::FlowSample::kFull
                      ? std::string()
                      : " (approximate: a sample of each stage's DP replicas, --flow-sample " +
                            replay::flow_sample_name(result.flow_sample) + ")")
              << "\n\nRemoved by rule:\n";
    Table rules({"rule", "removed", "first removed"});
    const nlohmann::json summary = api::plan_json(result, 1);  // held: a range-for over a temporary's member dangles
    for (const auto& r : summary["rules"]) {
      if (r["removed"].get<std::int64_t>() == 0) continue;
      rules.add_row({r["rule"].get<std::string>(), std::to_string(r["removed"].get<std::int64_t>()),
                     r["example"].get<std::string>()});
    }
    rules.print(std::cout, format, "  ");
    std::cout << "\nBest " << std::min(top, result.entries.size()) << ":\n";
  }
  std::vector<std::string> headers({"rank", "tp", "pp", "vpp", "cp", "ep", "dp", "mb", "recompute", "optimizer", "network", "step_s",
               "tokens_per_s", "tokens_per_s p10-p90", "mfu_%", "distinguishable", "mem_GiB", "bubble_s", "exp_tp_s", "exp_pp_s", "exp_dp_s", "exp_cp_s",
               "exp_ep_s", "recompute_s", "why (vs rank 1)"});
  // Every row runs on the same build, so the column appears only when that build has warnings:
  // a sound build's table keeps its columns.
  const std::string checks = warning_checks(result.warnings);
  if (!checks.empty()) headers.push_back("warnings");
  const bool pooled = result.pool_assignments > 0;  // a column only where the plan searched a pool's assignment
  if (pooled) headers.push_back("pool");
  Table table(std::move(headers));
  const analysis::ErrorBands bands = api::load_bundled_error_bands();
  const auto band_on = [&](const char* network) {
    analysis::ErrorBandKey key = result.error_band;
    key.network = network;
    return analysis::band_for(bands, key);
  };
  const analysis::ErrorBand flow_band = band_on("flow"), analytical_band = band_on("analytical");
  for (std::size_t i = 0; i < result.entries.size() && i < top; ++i) {
    const auto& e = result.entries[i];
    if (!e.invalid.empty()) break;
    const auto& s = e.flow ? *e.flow : e.analytical;
    const auto& band = e.flow ? flow_band : analytical_band;
    const std::string distinct =
        i == 0 ? "-" : (api::distinguishable_from_best(e, result.entries.front(), result.objective, bands, result.error_band) ? "yes" : "no");
    std::vector<std::string> row({std::to_string(i + 1), std::to_string(e.split.tp), std::to_string(e.split.pp),
                   std::to_string(e.split.vpp), std::to_string(e.split.cp), std::to_string(e.split.ep),
                   std::to_string(e.dp), std::to_string(e.split.micro_batch), workload::recompute_name(e.split.recompute),
                   optimizer_name(e.split), e.flow ? "flow" : "analytical", fixed(s.step_time_s, 4),
                   fixed(s.tokens_per_s, 0), interval_text(analysis::throughput_interval(s.tokens_per_s, *band.from), 0),
                   fixed(100 * s.mfu, 1), distinct, fixed(s.memory_gib_per_gpu, 1),
                   fixed(s.bubble_s, 4), fixed(s.exposed_s.tp, 4), fixed(s.exposed_s.pp, 4), fixed(s.exposed_s.dp, 4),
                   fixed(s.exposed_s.cp, 4), fixed(s.exposed_s.ep, 4), fixed(s.recompute_s, 4), why_text(e)});
    if (!checks.empty()) row.push_back(checks);
    if (pooled) row.push_back(e.pool ? pool_text(*e.pool) : "");
    table.add_row(std::move(row));
  }
  table.print(std::cout, format, format == Format::kTable ? "  " : "");
  if (format == Format::kTable) {
    print_band_source(std::cout, result.entries.front().flow ? flow_band : analytical_band);
    std::cout << "distinguishable: whether a split's p10-p90 band of the objective misses rank 1's (its errors are "
                 "those of the same class, so the two are not independent)\n";
    print_warnings(std::cout, result.warnings);
  }
}

void declare_plan_options(CLI::App& command, PlanOptions& o) {
  o.given.attach(command);
  command.add_option("scenario", o.scenario, "scenario file (scenarios/*.json): model, cluster, GPUs, global batch");
  command.add_option("--gpus", o.gpus, "GPUs to plan for (default: the scenario's)")->check(CLI::Range(1, 1 << 24));
  command.add_option("--top", o.top, "results printed")->capture_default_str()->check(CLI::Range(1, 1000000));
  command.add_option("--objective", o.objective, "throughput (tokens/s) or mfu")->capture_default_str();
  command.add_option("--fix", o.fixes,
                      "field=value: a searched field narrowed to one value (parallel.tp=8, parallel.pp=4, "
                      "parallel.vpp=2, parallel.cp=2, parallel.ep=8, parallel.dp=16, training.micro_batch=2, "
                      "parallel.recompute=full, parallel.schedule=1f1b, parallel.zero=1, "
                      "parallel.distributed_optimizer=true) or any other scenario field set (training.global_batch=512)");
  add_placement_option(command, o.placement);
  command.add_option("--flow-top", o.flow_top, "best candidates re-ranked on the shared flow fabric")
      ->capture_default_str()
      ->check(CLI::Range(0, 100000));
  command.add_option("--flow-sample", o.flow_sample,
                      "full: every DP replica's traffic on the flow fabric (exact); su: only one scalable unit of "
                      "each pipeline stage, standing for the others; replica: only one DP replica (whole nodes) of "
                      "each stage. DP and other groups wider than the sample keep all their traffic. su and replica "
                      "are approximations (faster on large clusters; leaf-uplink and spine contention under-counted; "
                      "error measured in docs/plan.md)")
      ->capture_default_str();
  command.add_option("--memory-margin", o.memory_margin,
                      "share of each GPU's HBM kept free by the memory rule, for what the memory model does not "
                      "count (allocator fragmentation, NCCL and library workspaces; docs/plan.md): 10% or 0.1; 0 "
                      "gives the memory model alone")
      ->capture_default_str();
  command.add_option("--jobs", o.jobs, "candidates simulated at once (default: one per core; results do not depend on it)")
      ->check(CLI::Range(1, 1024));
  command.add_option("--format", o.format,
                      "table, json or csv; megatron (Megatron-LM flags) or nemo (Megatron-Bridge / NeMo recipe "
                      "overrides): the best split as the framework's arguments")
      ->capture_default_str();
  command.add_option("--figure", o.figure,
                      figure_help("the best tokens/s over TP x PP and the analytical against the flow ranking, of "
                                  "every split the plan ranked,"));
  command.add_flag("--exhaustive", o.exhaustive,
                    "replay every candidate on the analytical network (default: only those whose step-time lower "
                    "bound can still reach the best max(--top, --flow-top); the printed results are the same)");
  command.add_option("--shard", o.shard,
                      "i/N: evaluate only the i-th of N interleaved slices of the candidates and write that shard's "
                      "JSON (every candidate of the slice, whatever --format and --top) for --merge");
  command.add_option("--merge", o.merge, "shard files written by --shard: print the plan one machine would have given")
      ->expected(1, -1);
  command.add_option("--rank-of", o.rank_of,
                      "tp=4,pp=8,vpp=1,...: print where this split ranks on the analytical network (with --fix it "
                      "must name one candidate; names as in a result's split: tp, pp, vpp, cp, ep, schedule, "
                      "pipeline_accounting, micro_batch, recompute, zero, distributed_optimizer), replaying only "
                      "the candidates whose lower bound can rank ahead of it");
}

// --merge: shard files written before, to join.
struct PlanMerge {
  std::vector<nlohmann::json> shards;
  std::vector<std::string> files;  ///< named in errors
};

// The query: a plan (whole or one shard), the rank of one split, or a merge of shards; and how
// the result is printed.
struct PlanCall {
  std::variant<api::PlanOptions, api::RankOptions, PlanMerge> mode;
  std::optional<api::Scenario> scenario;  ///< none: --merge
  std::optional<api::FrameworkSyntax> framework;
  Format format = Format::kTable;
  bool shard = false;
};

using PlanCommandResult = std::variant<api::PlanResult, api::SplitRank>;

PlanCall plan_call(const PlanOptions& o) {
  PlanCall call;
  if (o.format == "megatron") call.framework = api::FrameworkSyntax::kMegatron;
  if (o.format == "nemo") call.framework = api::FrameworkSyntax::kNemo;
  if (call.framework && (!o.shard.empty() || !o.rank_of.empty())) {
    throw InputError("--format", "", o.format + " prints the best split: not with --shard or --rank-of");
  }
  call.format = call.framework ? Format::kTable : parse_format(o.format);
  const double memory_margin = api::parse_memory_margin(o.memory_margin, "--memory-margin");
  if (!o.figure.empty()) {
    check_figure_path(o.figure);
    if (!o.rank_of.empty() || !o.shard.empty()) {
      throw InputError("--figure", "", "draws a whole plan: not with --rank-of or --shard");
    }
  }
  if (!o.merge.empty()) {
    if (!o.scenario.empty() || !o.shard.empty() || !o.rank_of.empty()) {
      throw InputError("--merge", "", "takes shard files only (no scenario, no --shard, no --rank-of)");
    }
    PlanMerge merge;
    for (const auto& file : o.merge) merge.shards.push_back(load_json_file(file));
    merge.files = o.merge;
    call.mode = std::move(merge);
    return call;
  }
  if (o.scenario.empty()) throw InputError("scenario", "", "a scenario file is required (or --merge FILES)");
  if (!o.rank_of.empty()) {
    for (const char* other : {"--top", "--flow-top", "--flow-sample", "--shard", "--exhaustive"}) {
      if (o.given(other)) {
        throw InputError("--rank-of", "", std::string("ranks one split on the analytical network: ") + other +
                                              " does not apply");
      }
    }
    api::RankOptions options;
    if (o.gpus > 0) options.gpus = o.gpus;
    options.objective = api::parse_plan_objective(o.objective);
    options.fixes = o.fixes;
    options.placement = plan_placement_value(o.placement);
    options.key = parse_rank_key(o.rank_of);
    options.memory_margin = memory_margin;
    options.jobs = o.jobs;
    call.mode = std::move(options);
    call.scenario = api::Scenario::load(o.scenario);
    return call;
  }
  api::PlanOptions options;
  if (o.gpus > 0) options.gpus = o.gpus;
  options.objective = api::parse_plan_objective(o.objective);
  options.fixes = o.fixes;
  options.placement = plan_placement_value(o.placement);
  options.flow_top = o.flow_top;
  options.flow_sample = replay::parse_flow_sample(o.flow_sample, "--flow-sample");
  options.jobs = o.jobs;
  options.top = o.top;
  options.exhaustive = o.exhaustive;
  options.memory_margin = memory_margin;
  if (call.framework) options.top = 1;
  if (!o.shard.empty()) api::parse_shard(o.shard, options.shard_index, options.shard_count);
  options.note = [](const std::string& line) { std::cerr << "ctwin plan: note: --" << line << '\n'; };
  call.shard = !o.shard.empty();
  call.mode = std::move(options);
  call.scenario = api::Scenario::load(o.scenario);
  return call;
}

PlanCommandResult evaluate_plan_call(const PlanCall& call) {
  if (const auto* merge = std::get_if<PlanMerge>(&call.mode)) return api::merge_plans(merge->shards, merge->files);
  api::EvalContext context;
  const auto progress = terminal_progress();  // its last line ends before the results are printed
  if (const auto* rank = std::get_if<api::RankOptions>(&call.mode)) {
    api::RankOptions options = *rank;
    options.progress = progress->callback;
    return api::rank_split(*call.scenario, context, options);
  }
  api::PlanOptions options = std::get<api::PlanOptions>(call.mode);
  options.progress = progress->callback;
  return api::evaluate_plan(*call.scenario, context, options);
}

void print_plan_call(const PlanCommandResult& result, const PlanCall& call, const PlanOptions& o) {
  if (const auto* rank = std::get_if<api::SplitRank>(&result)) {
    print_split_rank(*rank, call.format);
    return;
  }
  const api::PlanResult& plan = std::get<api::PlanResult>(result);
  if (call.shard) {
    std::cout << json_text(api::plan_json(plan, 0), 2) << '\n';
    return;
  }
  if (call.framework) {
    print_framework_arguments(plan, *call.framework);
  } else {
    print_plan(plan, o.top, call.format);
  }
  if (!o.figure.empty()) write_figure("plan", api::plan_json(plan, plan.entries.size()), o.figure);
}

}  // namespace

Action add_plan_command(CLI::App& app) {
  return add_command(app, CommandParts<PlanOptions, PlanCall, PlanCommandResult>{
                              "plan",
                              "The best splits (TP/SP/PP/VPP/CP/EP/DP, micro-batch, recompute, ZeRO, schedule) of a "
                              "scenario's model on its cluster: every valid split that fits in memory ranked on the "
                              "analytical network, the best --flow-top again on the shared flow fabric",
                              declare_plan_options, plan_call, evaluate_plan_call, print_plan_call});
}

}  // namespace ctwin::cli
