// ctwin goodput: a training run's life under failures, checkpoints, restarts and spares, as a
// Monte Carlo over runs (docs/goodput.md), and --validate: the reliability model against
// published failure counts.

#include <cmath>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <utility>
#include <variant>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "ctwin/api/public_analysis.hpp"
#include "ctwin/api/public_studies.hpp"
#include "ctwin/cli/command_pattern.hpp"
#include "ctwin/cli/commands.hpp"
#include "ctwin/cli/figure_output.hpp"
#include "ctwin/cli/fabric_options.hpp"
#include "ctwin/cli/output.hpp"
#include "ctwin/cli/seed_option.hpp"
#include "ctwin/cli/step_flags.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/core/json_text.hpp"
#include "ctwin/core/rate_parse.hpp"
#include "ctwin/core/unit_parse.hpp"
#include "ctwin/api/public_fabric.hpp"
#include "ctwin/api/public_replay.hpp"

namespace ctwin::cli {
namespace {

// The query's fields are the options (one list, its defaults); the rest only the command reads.
struct GoodputOptions {
  api::GoodputQuery query;
  std::string scenario;
  std::vector<std::string> overrides;
  std::string network;
  bool no_fp32_master = false;
  std::string format = "table";
  std::string figure;
  bool validate = false;
  std::string cases = "validation/reliability/cases.json";
};

std::string duration_text(double seconds) {
  if (!std::isfinite(seconds)) return "never";
  if (seconds < 120) return fixed(seconds, 1) + " s";
  if (seconds < 7200) return fixed(seconds / 60, 1) + " min";
  if (seconds < 172800) return fixed(seconds / 3600, 2) + " h";
  return fixed(seconds / 86400, 2) + " d";
}

void print_study(const replay::Scenario& scenario, const analysis::ReliabilityModel& model, const analysis::GoodputStudy& s,
                 const std::optional<api::GoodputScenarioCheckpoint>& from_scenario, Format format) {
  const auto& r = s.result;
  const auto& c = s.config;
  const double days = c.duration_s / 86400;
  if (format == Format::kCsv) {
    Table t({"section", "name", "value"});
    const auto row = [&](const std::string& section, const std::string& name, double v) {
      t.add_row({section, name, fixed(v, 6)});
    };
    row("run", "days", days);
    row("run", "interval_s", c.interval_s);
    row("run", "young_daly_interval_s", s.young_daly_s);
    row("run", "expected_interruptions", r.expected_interruptions);
    row("run", "interruptions_mean", r.interruptions.mean);
    row("run", "ettr_mean", r.ettr.mean);
    row("run", "ettr_p5", r.ettr.p5);
    row("run", "ettr_p95", r.ettr.p95);
    row("run", "formula_ettr", s.formula_ettr);
    row("run", "goodput_mean", r.goodput.mean);
    row("run", "mtbf_h", r.mtbf_s / 3600);
    row("run", "mttr_h", r.mttr_s / 3600);
    row("run", "availability", r.availability);
    row("run", "pool_dry_probability", r.pool_dry_probability);
    for (std::size_t i = 0; i < s.sources.size(); ++i) row("interruptions", s.sources[i].component->name, r.interruptions_by_cause[i]);
    row("hours_lost", "checkpoint", r.time.checkpoint_s / 3600);
    row("hours_lost", "lost_work", r.time.lost_work_s / 3600);
    row("hours_lost", "detection", r.time.detection_s / 3600);
    row("hours_lost", "waiting_for_spares", r.time.waiting_s / 3600);
    row("hours_lost", "switchover", r.time.switchover_s / 3600);
    row("hours_lost", "restart", r.time.restart_s / 3600);
    row("hours_lost", "shrunk_equivalent", r.time.shrunk_s / 3600);
    if (r.time.straggler_s > 0) row("hours_lost", "stragglers", r.time.straggler_s / 3600);
    if (r.time.slowdown_s > 0) row("hours_lost", "leaf_down_slowdown", r.time.slowdown_s / 3600);
    t.print(std::cout, Format::kCsv);
    return;
  }
  std::cout << scenario.model.name << " on " << s.counts.gpus << " x " << scenario.gpu.name << " (" << scenario.cluster.name
            << "), step " << fixed(s.step_time_s, 3) << " s, " << fixed(s.tokens_per_s / 1e6, 3) << " M tokens/s\n";
  std::cout << "build: " << s.counts.nodes << " nodes, " << s.counts.leaf_switches << " leaf / " << s.counts.spine_switches
            << " spine / " << s.counts.core_switches << " core switches, " << s.counts.access_cables + s.counts.fabric_cables
            << " cables, " << s.counts.access_transceivers + s.counts.fabric_transceivers << " transceivers\n";
  std::cout << "reliability (" << model.file << "): " << fixed(s.failures_per_hour, 4) << " failures/h, job MTBF "
            << duration_text(s.mtbf_s) << "\n";
  std::cout << "checkpoint: " << fixed(s.checkpoint.size.bytes / 1e12, 2) << " TB (" << fixed(s.checkpoint.size.bytes_per_parameter, 0)
            << " B/param), " << s.checkpoint.size.writer_nodes << " writer nodes, tier " << s.checkpoint.tier << ": blocks "
            << duration_text(s.checkpoint.blocking_s);
  if (s.checkpoint.asynchronous) std::cout << ", durable " << duration_text(s.checkpoint.persist_s) << " later";
  std::cout << ", load " << duration_text(s.checkpoint.load_s) << "\n";
  if (from_scenario) {  // tables of scenarios without a checkpoint keep their lines
    const api::GoodputCheckpointOrigin& o = from_scenario->origin;
    std::cout << "checkpoint figures from: tier " << o.tier << ", mode " << o.mode << ", bytes/param "
              << o.bytes_per_parameter << ", interval " << o.interval << "\n";
  }
  const bool scenario_interval = from_scenario && from_scenario->interval_s;
  std::cout << "interval: " << duration_text(c.interval_s)
            << (s.search ? " (simulated best)" : scenario_interval ? " (the scenario's)" : " (given)") << "; Young/Daly "
            << duration_text(s.young_daly_s) << " (first-order ETTR there " << fixed(100 * s.young_daly_ettr, 2) << " %)\n";
  std::cout << "spares: " << c.spares.hot << " hot (switchover " << duration_text(c.spares.hot_swap_s) << "), " << c.spares.cold
            << " cold (swap " << duration_text(c.spares.cold_swap_s) << "), when empty: " << analysis::to_string(c.spares.on_empty)
            << "\n";
  std::cout << c.runs << " runs of " << fixed(days, 2) << " days, seed " << c.seed << "\n";
  Table m({"metric", "mean", "p5", "p50", "p95"});
  const auto spread_row = [&](const std::string& name, const analysis::Spread& v, double scale, int decimals) {
    m.add_row({name, fixed(v.mean * scale, decimals), fixed(v.p5 * scale, decimals), fixed(v.p50 * scale, decimals),
               fixed(v.p95 * scale, decimals)});
  };
  spread_row("interruptions", r.interruptions, 1, 1);
  spread_row("ETTR %", r.ettr, 100, 2);
  spread_row("goodput %", r.goodput, 100, 2);
  m.print(std::cout, Format::kTable, "  ");
  Table k({"figure", "value"});
  k.add_row({"expected interruptions (rate x time)", fixed(r.expected_interruptions, 1)});
  k.add_row({"ETTR, first-order formula at this interval", fixed(100 * s.formula_ettr, 2) + " %"});
  k.add_row({"MTBF (run time / failures)", duration_text(r.mtbf_s)});
  k.add_row({"MTTR (failure to training again)", duration_text(r.mttr_s)});
  k.add_row({"availability ((time - down) / time)", fixed(100 * r.availability, 2) + " %"});
  k.add_row({"P(no hot spare at a failure)", fixed(100 * r.hot_dry_probability, 1) + " %"});
  k.add_row({"P(spare pool runs dry)", fixed(100 * r.pool_dry_probability, 1) + " %"});
  k.print(std::cout, Format::kTable, "  ");
  std::cout << "interruptions by cause (per run):\n";
  Table causes({"cause", "per", "units", "rate per unit-h", "takes", "expected", "simulated"});
  for (std::size_t i = 0; i < s.sources.size(); ++i) {
    const auto& src = s.sources[i];
    char rate[32];
    std::snprintf(rate, sizeof rate, "%.3g%s", src.component->rate_per_hour, src.component->assumed ? " *" : "");
    causes.add_row({src.component->name, analysis::to_string(src.component->per), std::to_string(src.units), rate,
                    analysis::to_string(src.component->takes), fixed(src.rate_per_hour * c.duration_s / 3600, 2),
                    fixed(r.interruptions_by_cause[i], 2)});
  }
  causes.print(std::cout, Format::kTable, "  ");
  std::cout << "  (* assumed rate, see the model file's notes)\n";
  std::cout << "time per run:\n";
  Table t({"where", "hours", "% of run"});
  const auto time_row = [&](const std::string& name, double seconds) {
    t.add_row({name, fixed(seconds / 3600, 2), fixed(100 * seconds / c.duration_s, 2)});
  };
  time_row("training kept", r.time.useful_s);
  time_row("checkpoint writes", r.time.checkpoint_s);
  time_row("lost work", r.time.lost_work_s);
  time_row("detection", r.time.detection_s);
  time_row("waiting for spares", r.time.waiting_s);
  time_row("spare switchover", r.time.switchover_s);
  time_row("restart (launch + load)", r.time.restart_s);
  if (r.time.straggler_s > 0) time_row("throttled GPUs (stragglers)", r.time.straggler_s);
  if (r.time.slowdown_s > 0) time_row("a dual-plane leaf down (slowed)", r.time.slowdown_s);
  t.print(std::cout, Format::kTable, "  ");
  if (r.time.shrunk_s > 0) {
    std::cout << "  running with fewer replicas cost the equivalent of " << fixed(r.time.shrunk_s / 3600, 2)
              << " h of training (goodput, not ETTR)\n";
  }
  if (s.search) {
    std::cout << "checkpoint interval search (" << c.runs << " runs per point, common random numbers):\n";
    Table g({"interval", "ETTR %"});
    for (const auto& p : s.search->points) g.add_row({duration_text(p.interval_s), fixed(100 * p.ettr, 3)});
    g.print(std::cout, Format::kTable, "  ");
  }
}

void print_shrunk_jobs(const std::map<long long, api::ShrunkJob>& jobs) {
  std::cout << "smaller jobs (the twin's step, global batch nearest to the scenario's):\n";
  Table t({"replicas", "GPUs", "global batch", "step s", "M tokens/s", "share of tokens/s", "linear share"});
  const long long all = jobs.rbegin()->first;
  for (const auto& [replicas, j] : jobs) {
    t.add_row({std::to_string(replicas), std::to_string(j.gpus), std::to_string(j.global_batch), fixed(j.step_time_s, 3),
               fixed(j.tokens_per_s / 1e6, 3), j.invalid.empty() ? fixed(j.share, 4) : "invalid: linear",
               fixed(static_cast<double>(replicas) / static_cast<double>(all), 4)});
  }
  t.print(std::cout, Format::kTable, "  ");
}

void print_leaf_down(const api::LeafDownEffect& e, const analysis::GoodputStudy& s) {
  std::cout << "dual-plane leaf failures (" << fixed(s.slowdowns_per_hour, 4) << "/h, not interruptions): the step with "
            << e.degrade << " is " << fixed(e.step_time_s, 3) << " s against " << fixed(e.healthy_step_time_s, 3)
            << " s (x" << fixed(e.effect, 4) << ") until the leaf is repaired; " << fixed(s.result.slowdown_events, 1)
            << " per run, " << fixed(s.result.time.slowdown_s / 3600, 2)
            << " h of training lost per run (rate x time x repair x (1 - 1/slowdown) x interval share: "
            << fixed(s.expected_slowdown_s / 3600, 2) << " h)\n";
}

void print_stragglers(const api::GoodputStragglers& st, const analysis::GoodputResult& r) {
  std::cout << "stragglers (assumed rate " << st.rate_per_gpu_hour << " per GPU-hour, a GPU at " << fixed(100 * st.speed, 0)
            << " % for " << duration_text(st.duration_s) << "): " << fixed(r.straggler_events, 1) << " events per run, "
            << fixed(r.time.straggler_s / 3600, 2) << " h of training lost per run (rate x time x duration x (1 - 1/effect), as if no two overlapped and the job always trained: "
            << fixed(st.expected_lost_s / 3600, 2) << " h)\n";
  Table t({"stage", "GPU slowed", "step s", "effect"});
  for (const auto& [stage, e] : st.effects) {
    t.add_row({std::to_string(stage), std::to_string(e.gpu), fixed(e.step_time_s, 3), fixed(e.effect, 4)});
  }
  t.print(std::cout, Format::kTable, "  ");
}

// --validate: the reliability model's predictions of published failure counts.
struct ReliabilityCheck {
  analysis::ReliabilityModel model;
  std::vector<analysis::CasePrediction> predictions;
  double fitted = 0;  ///< the GPU rate fitted on the fit cases, per hour
};

ReliabilityCheck check_reliability(const std::string& reliability, const std::string& cases_file) {
  ReliabilityCheck check{analysis::load_reliability_model(resolve_data_path(reliability)), {}, 0};
  const auto cases = analysis::load_reliability_cases(resolve_data_path(cases_file));
  check.predictions = analysis::predict_cases(check.model, cases, CTWIN_DATA_DIR);
  check.fitted = analysis::fit_gpu_rate(cases);
  return check;
}

void print_validation(const ReliabilityCheck& check, Format format) {
  const auto& [model, predictions, fitted] = check;
  if (format == Format::kJson) {
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& p : predictions) {
      rows.push_back({{"case", p.c.name}, {"role", p.c.fit ? "fit" : "held_out"}, {"group", p.c.group}, {"gpus", p.c.gpus},
                      {"days", p.c.days}, {"measured", p.c.count}, {"predicted", p.predicted}, {"error", p.error},
                      {"source", p.c.source_title + ", " + p.c.source_where + " (" + p.c.source_date + ") " + p.c.source_url}});
    }
    std::cout << json_text(nlohmann::json{{"reliability_model", model.file}, {"fitted_gpu_rate_per_hour", fitted}, {"cases", rows}}, 2)
              << '\n';
    return;
  }
  Table t({"case", "role", "group", "GPUs", "days", "measured", "predicted", "error"});
  for (const auto& p : predictions) {
    t.add_row({p.c.name, p.c.fit ? "fit" : "held out", p.c.group, std::to_string(p.c.gpus), fixed(p.c.days, 0),
               fixed(p.c.count, 0), fixed(p.predicted, 1), signed_percent(p.error)});
  }
  if (format == Format::kTable) {
    std::cout << "reliability model " << model.file << " against published failure counts\n";
    std::cout << "GPU rate fitted on the fit cases: " << fixed(fitted * 1e5, 3) << "e-5 per GPU-hour\n";
  }
  t.print(std::cout, format, format == Format::kTable ? "  " : "");
}

void declare_goodput_options(CLI::App& command, GoodputOptions& o) {
  command.add_option("scenario", o.scenario, "scenario file (scenarios/*.json); not needed with --validate");
  command.add_option("--days", o.query.days, "length of the run in days (required with a scenario)");
  command.add_option("--checkpoint-interval", o.query.interval,
                      "training time between checkpoints, e.g. 30min or 2h, or auto: the scenario's checkpoint.every_steps when it has one, else the simulated best")
      ->capture_default_str();
  command.add_option("--spares", o.query.spares, "hot spare nodes: 16, 5% (of the job's nodes) or 2/su (per scalable unit); 0 for none")
      ->capture_default_str();
  command.add_option("--cold-spares", o.query.cold_spares, "cold spare nodes, same forms as --spares")->capture_default_str();
  command.add_option("--hot-swap", o.query.hot_swap, "switchover time to a hot spare, e.g. 30s")->capture_default_str();
  command.add_option("--cold-swap", o.query.cold_swap, "time to bring a cold spare in, e.g. 2h")->capture_default_str();
  command.add_option("--on-empty", o.query.on_empty,
                      "when no spare is left: wait (for a repair) or shrink (continue with fewer data-parallel replicas)")
      ->capture_default_str();
  command.add_option("--reliability", o.query.reliability, "reliability model (failure rates per component)")->capture_default_str();
  command.add_option("--storage", o.query.storage, "checkpoint tier by name, from --storage-file; cluster:NAME takes a shared tier of the scenario's cluster storage; auto: the scenario's checkpoint tier and mode when it has one, else the cluster's first shared tier with a write rate, else pfs (docs/io.md)")->capture_default_str();
  command.add_option("--storage-file", o.query.storage_file, "checkpoint storage tiers")->capture_default_str();
  command.add_flag("--no-fp32-master", o.no_fp32_master,
                    "checkpoints hold no fp32 master weights (10 instead of 14 bytes per parameter, as OPT-175B)");
  command.add_option("--straggler-rate", o.query.straggler_rate,
                      "GPU throttling events per GPU and hour, e.g. 1e-4/h or 2/year (an assumption: no public fleet rate)")
      ->capture_default_str();
  command.add_option("--straggler-speed", o.query.straggler_speed,
                      "a throttled GPU's share of its speed; the step's slowdown comes from ctwin run --degrade gpu:RANK=SPEED")
      ->capture_default_str();
  command.add_option("--straggler-duration", o.query.straggler_duration, "how long a GPU stays throttled, e.g. 30min")
      ->capture_default_str();
  command.add_option("--step-time", o.query.step_time,
                      "use this step time (e.g. 8.5s) instead of simulating one step with ctwin run's model");
  command.add_option("--network", o.network, "analytical or flow for the simulated step (default: the scenario's)");
  command.add_option("--set", o.overrides, "override a scenario field: parallel.tp=4 (repeatable)");
  command.add_option("--runs", o.query.runs, "Monte Carlo runs")->capture_default_str();
  command.add_option("--seed", o.query.seed, "random seed: the same seed gives the same output")
      ->capture_default_str()
      ->check(seed_range());
  command.add_option("--format", o.format, "table, json or csv")->capture_default_str();
  command.add_option("--figure", o.figure,
                      figure_help("ETTR against the checkpoint interval (the simulated grid of --checkpoint-interval auto)"));
  command.add_flag("--validate", o.validate, "compare the reliability model with published failure counts and exit");
  command.add_option("--cases", o.cases, "validation cases for --validate")->capture_default_str();
}

// The query: a study of the scenario as the flags change it, or (--validate) the reliability
// model against the published cases.
struct GoodputCall {
  std::variant<api::GoodputQuery, std::pair<std::string, std::string>> mode;  ///< the second: model and cases files
  Format format = Format::kTable;
};

using GoodputResult = std::variant<api::GoodputEvaluation, ReliabilityCheck>;

GoodputCall goodput_call(const GoodputOptions& o) {
  const Format format = parse_format(o.format);
  if (!o.figure.empty()) {
    check_figure_path(o.figure);
    if (o.validate) throw InputError("--figure", "", "draws a goodput study: not with --validate");
  }
  if (o.validate) return GoodputCall{std::pair(o.query.reliability, o.cases), format};
  api::GoodputQuery q = o.query;
  const std::vector<std::string> overrides = with_step_flags(o.overrides, {"", "", o.network});
  if (!o.scenario.empty()) q.scenario = api::Scenario::load(o.scenario).with_assignments(overrides);
  q.fp32_master = !o.no_fp32_master;
  return GoodputCall{std::move(q), format};
}

GoodputResult evaluate_goodput_call(const GoodputCall& call) {
  if (const auto* files = std::get_if<std::pair<std::string, std::string>>(&call.mode)) {
    return check_reliability(files->first, files->second);
  }
  api::EvalContext context;
  return api::evaluate_goodput(std::get<api::GoodputQuery>(call.mode), context);
}

void print_goodput(const GoodputResult& result, const GoodputCall& call, const GoodputOptions& o) {
  const Format format = call.format;
  if (const auto* check = std::get_if<ReliabilityCheck>(&result)) {
    print_validation(*check, format);
    return;
  }
  const api::GoodputEvaluation& g = std::get<api::GoodputEvaluation>(result);
  if (!o.figure.empty()) write_figure("goodput", api::goodput_json(g), o.figure);
  if (format == Format::kJson) {
    std::cout << json_text(api::goodput_json(g), 2) << '\n';
    return;
  }
  print_study(g.scenario, *g.model, g.study, g.checkpoint, format);
  if (format == Format::kTable && !g.shrunk_jobs.empty()) print_shrunk_jobs(g.shrunk_jobs);
  if (format == Format::kTable && g.stragglers) print_stragglers(*g.stragglers, g.study.result);
  if (format == Format::kTable && g.leaf_down) print_leaf_down(*g.leaf_down, g.study);
}

}  // namespace

Action add_goodput_command(CLI::App& app) {
  return add_command(app, CommandParts<GoodputOptions, GoodputCall, GoodputResult>{
                              "goodput", "Failures, checkpoints, restarts and spares over a whole training run (Monte Carlo)",
                              declare_goodput_options, goodput_call, evaluate_goodput_call, print_goodput});
}

}  // namespace ctwin::cli
