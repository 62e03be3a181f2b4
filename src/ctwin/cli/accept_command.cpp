// ctwin accept: the expected result of every acceptance test on the healthy build, and with
// --measured, what was measured beside it with the parts that explain the failures.

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <optional>

#include <CLI/CLI.hpp>

#include "ctwin/api/public_acceptance.hpp"
#include "ctwin/cli/command_pattern.hpp"
#include "ctwin/cli/commands.hpp"
#include "ctwin/cli/fabric_options.hpp"
#include "ctwin/cli/output.hpp"
#include "ctwin/cli/progress_line.hpp"
#include "ctwin/cli/routing_option.hpp"
#include "ctwin/cli/seed_option.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/core/json_text.hpp"
#include "ctwin/core/parallel_for.hpp"

namespace ctwin::cli {
namespace {

struct AcceptOptions {
  FabricOptions fabric;
  std::string plan = "scenarios/acceptance/default.json";
  std::string measured;
  std::string format = "table";
  std::string show;
  std::vector<std::string> figures;
  std::vector<std::string> synthesize;
  double noise = 0;
  std::uint64_t seed = 1;
  unsigned jobs = default_jobs();
};

std::string figure(double value) {
  if (value != 0 && (std::abs(value) < 0.01 || std::abs(value) >= 1e6)) {
    char text[32];
    std::snprintf(text, sizeof text, "%.3e", value);
    return text;
  }
  return fixed(value, std::abs(value) >= 100 ? 1 : 4);
}

void print_expected(const api::AcceptanceExpectation& e, Format format) {
  if (format == Format::kTable) {
    std::cout << "plan " << e.plan << " on " << e.cluster << ", " << e.gpus << " GPUs (" << e.nodes << " nodes)\n";
  }
  Table table({"test", "kind", "point", "metric", "unit", "expected", "expected p10-p90", "threshold", "tolerance", "detail"});
  for (const auto& r : e.rows) {
    table.add_row({r.test, api::to_string(r.kind), r.instance, r.metric, api::metric_unit(r.metric), figure(r.expected),
                   r.band ? figure(r.band->low) + "-" + figure(r.band->high) : "", figure(r.threshold), r.tolerance, r.detail});
  }
  table.print(std::cout, format);
}

void print_check(const api::AcceptanceCheck& c, Format format, api::ReportDetail detail) {
  Table table({"test", "point", "metric", "unit", "expected", "threshold", "measured", "result", "source"});
  for (const auto& p : c.points) {
    if (p.pass && detail != api::ReportDetail::kAll) continue;
    table.add_row({p.test, p.instance, p.metric, api::metric_unit(p.metric), figure(p.expected), figure(p.threshold),
                   figure(p.measured), p.pass ? "pass" : "FAIL", p.source});
  }
  if (format == Format::kCsv) {
    table.print(std::cout, format);
    return;
  }
  std::cout << "plan " << c.expectation.plan << " on " << c.expectation.cluster << ", " << c.expectation.gpus << " GPUs\n"
            << api::verdict_text(c) << "\n\n";
  Table coverage({"test", "kind", "coverage", "units", "measured_units", "points", "outside_plan", "not_measured"});
  for (const auto& t : c.coverage) {
    std::string missing;
    for (const auto& m : t.missing) missing += (missing.empty() ? "" : "; ") + m;
    const std::int64_t more = t.units - t.covered - static_cast<std::int64_t>(t.missing.size());
    if (more > 0) missing += "; +" + std::to_string(more) + " more";
    coverage.add_row({t.test, api::to_string(t.kind), api::to_string(t.status), std::to_string(t.units) + " " + t.unit + "s",
                      std::to_string(t.covered), std::to_string(t.points), std::to_string(t.outside_plan), missing});
  }
  coverage.print(std::cout, format);
  if (detail != api::ReportDetail::kSummary && (c.failed > 0 || detail == api::ReportDetail::kAll)) {
    std::cout << (detail == api::ReportDetail::kAll ? "\nmeasured points\n" : "\nfailed points\n");
    table.print(std::cout, format);
  }
  if (!c.suspects.empty()) {
    std::cout << "\nsuspects, best first (scored on " << c.evidence_points << " points)\n";
    Table suspects({"rank", "part", "fitted", "score", "explains_%", "failed_points_crossing"});
    for (std::size_t i = 0; i < c.suspects.size(); ++i) {
      const auto& s = c.suspects[i];
      suspects.add_row({std::to_string(i + 1), s.part, s.term, figure(s.score), fixed(100 * s.explained, 1),
                        std::to_string(s.failures_crossed)});
    }
    suspects.print(std::cout, format);
    std::cout << "\nexplanation:";
    for (const auto& s : c.explanation) std::cout << ' ' << s.term;
    std::cout << '\n';
  }
  for (const auto& n : c.narrowed) {
    std::cout << "\n" << n.test << ": passed on " << n.passed_nodes << " nodes, failed from " << n.failed_nodes << " nodes";
    if (!n.prefix) {
      std::cout << ", then passed again at more nodes: no node range to suspect; repeat the failed sizes\n";
    } else if (n.next_nodes > 0) {
      std::cout << ": suspect nodes " << n.passed_nodes << ".." << n.failed_nodes - 1 << "; next, the same collective on "
                << n.next_nodes << " nodes halves the range\n";
    } else {
      std::cout << ": suspect node " << n.passed_nodes << " (or the switches that join it to the rest)\n";
    }
  }
}

void declare_accept_options(CLI::App& command, AcceptOptions& o) {
  add_fabric_options(command, o.fabric);
  add_routing_option(command, o.fabric.routing);
  command.add_option("--plan", o.plan, "acceptance plan (scenarios/acceptance/*.json)")->capture_default_str();
  command.add_option("--measured", o.measured,
                     "folder of what the tests printed: CSV test,instance,value[,unit]; nccl-tests <test>.log; "
                     "ib_send_bw/osu output <test>.<SRC>-<DST>.txt");
  command.add_option("--format", o.format, "table, json, csv or markdown (a page to sign)")->capture_default_str();
  command.add_option("--show", o.show,
                     "with --measured: summary (verdict, coverage, suspects), failures (and the failed points; the "
                     "default for table and markdown) or all (every measured point; the default for csv); json has everything");
  command.add_option("--figure", o.figures, "an image to show in the Markdown page (repeatable)");
  command.add_option("--synthesize", o.synthesize,
                     "print, as measured CSV, what the tests would measure with this part degraded "
                     "(nic:RANK=0.25, link:leaf3.up5=0.5, leaf:3=uplinks:0.5, gpu:RANK=0.8; repeatable; 'none' for the healthy build)");
  command.add_option("--noise", o.noise, "with --synthesize: each value times 1 + u, u uniform in [-noise, noise]")
      ->check(CLI::Range(0.0, 0.5))
      ->capture_default_str();
  command.add_option("--seed", o.seed, "with --synthesize: the noise's seed")->capture_default_str()->check(seed_range());
  command.add_option("--jobs", o.jobs, "test points computed at once (default: one per core; results do not depend on it)")
      ->check(CLI::Range(1, 1024));
}

// The query: the plan on the build, and what to do with its expectations: print them, check a
// folder of measurements against them, or synthesize measurements from degraded parts.
struct AcceptCall {
  api::Build build;
  api::AcceptancePlan plan;
  unsigned jobs = 1;
  bool markdown = false;
  Format format = Format::kTable;
  api::ReportDetail detail = api::ReportDetail::kFailures;
  std::string measured;  ///< a folder of measurements; empty: none
  bool synthesize = false;
  std::vector<std::string> degraded;  ///< --synthesize's parts, 'none' left out
  double noise = 0;
  std::uint64_t seed = 1;
};

struct AcceptResult {
  api::AcceptanceExpectation expectation;
  std::optional<api::MeasuredSet> synthesized;
  std::optional<api::AcceptanceCheck> check;  ///< with --measured
};

AcceptCall accept_call(const AcceptOptions& o) {
  AcceptCall call;
  call.markdown = o.format == "markdown";
  call.format = call.markdown ? Format::kTable : parse_format(o.format);
  call.detail = api::parse_report_detail(o.show.empty() ? (call.format == Format::kCsv ? "all" : "failures") : o.show, "--show");
  call.plan = api::load_acceptance_plan(api::resolve_named(o.plan, DataKind::kAcceptancePlan, "--plan").string());
  call.build = build_of(o.fabric);
  call.jobs = o.jobs;
  call.measured = o.measured;
  call.synthesize = !o.synthesize.empty();
  for (const auto& term : o.synthesize) {
    if (term != "none") call.degraded.push_back(term);
  }
  call.noise = o.noise;
  call.seed = o.seed;
  return call;
}

AcceptResult evaluate_accept_call(const AcceptCall& call) {
  api::EvalContext context;
  AcceptResult result{api::evaluate_acceptance(call.build, call.plan, context, {call.jobs, item_progress("test points")}),
                      std::nullopt, std::nullopt};
  if (call.synthesize) {
    result.synthesized =
        api::synthesize_measured(call.build, call.plan, result.expectation, call.degraded, call.noise, call.seed, context);
  } else if (!call.measured.empty()) {
    const auto fabric = api::build_fabric(call.build, context);
    const api::MeasuredSet measured = api::read_measured(call.measured, call.plan, *fabric);
    result.check = api::check_acceptance(call.build, call.plan, result.expectation, measured, context);
  }
  return result;
}

void print_synthesized(const api::MeasuredSet& set, const api::AcceptancePlan& plan) {
  std::map<std::string, std::string> metric;
  for (const auto& t : plan.tests) metric[t.id] = t.metric;
  std::cout << "test,instance,value,unit\n";
  for (const auto& v : set.values) {
    char value[32];
    std::snprintf(value, sizeof value, "%.6g", v.value);
    std::cout << v.test << ',' << v.instance << ',' << value << ',' << api::metric_unit(metric[v.test]) << '\n';
  }
}

void print_accept(const AcceptResult& result, const AcceptCall& call, const AcceptOptions& o) {
  if (result.synthesized) {
    print_synthesized(*result.synthesized, call.plan);
  } else if (result.check) {
    if (call.markdown) {
      std::cout << api::acceptance_markdown(result.expectation, &*result.check, o.figures, call.detail);
    } else if (call.format == Format::kJson) {
      std::cout << json_text(api::acceptance_json(*result.check), 2) << '\n';
    } else {
      print_check(*result.check, call.format, call.detail);
    }
  } else if (call.markdown) {
    std::cout << api::acceptance_markdown(result.expectation, nullptr, o.figures);
  } else if (call.format == Format::kJson) {
    std::cout << json_text(api::acceptance_json(result.expectation), 2) << '\n';
  } else {
    print_expected(result.expectation, call.format);
  }
}

}  // namespace

Action add_accept_command(CLI::App& app) {
  return add_command(app, CommandParts<AcceptOptions, AcceptCall, AcceptResult>{
                              "accept",
                              "Acceptance tests: what each should show on the healthy build, and with --measured, which "
                              "parts fall short",
                              declare_accept_options, accept_call, evaluate_accept_call, print_accept});
}

}  // namespace ctwin::cli
