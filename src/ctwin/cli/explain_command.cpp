// ctwin explain: the waterfall from one setup to another, one factor at a time (docs/explain.md).

#include <iostream>
#include <memory>

#include <CLI/CLI.hpp>

#include "ctwin/api/public_studies.hpp"
#include "ctwin/cli/command_pattern.hpp"
#include "ctwin/cli/commands.hpp"
#include "ctwin/cli/figure_output.hpp"
#include "ctwin/cli/output.hpp"
#include "ctwin/cli/progress_line.hpp"
#include "ctwin/core/json_text.hpp"

namespace ctwin::cli {
namespace {

struct ExplainOptions {
  std::string chain;
  bool reverse = false;
  std::string format = "table";
  std::string figure;
};

std::string gain_text(double gain) { return gain >= 10 ? fixed(gain, 1) + "x" : fixed(gain, 2) + "x"; }

std::string linearity_text(const api::ExplainLink& link) { return link.linearity ? fixed(*link.linearity, 3) : "-"; }

void print_links(const api::ExplainResult& result, Format format) {
  const bool goodput = result.chain.goodput.has_value();
  std::vector<std::string> headers{"link",   "factor",       "step_s",    "tokens_per_s", "mfu_%",
                                   "gpu_util_%", "comm_%", "exposed_io_s", "linearity"};
  if (goodput) headers.emplace_back("goodput_%");
  for (const char* h : {"gain", "cumulative", "share_%"}) headers.emplace_back(h);
  if (!result.reversed.empty()) {
    headers.emplace_back("gain_reversed");
    headers.emplace_back("share_reversed_%");
  }
  Table table(headers);
  for (std::size_t i = 0; i < result.links.size(); ++i) {
    const api::ExplainLink& link = result.links[i];
    const replay::StepReport& r = link.report;
    std::vector<std::string> row{link.label,
                                 link.factor.empty() ? "-" : link.factor,
                                 fixed(r.step_time_s, 3),
                                 fixed(r.tokens_per_s, 0),
                                 fixed(100 * r.mfu, 1),
                                 fixed(100 * link.gpu_utilisation, 1),
                                 fixed(100 * r.comm_ratio, 1),
                                 fixed(r.breakdown.exposed_io_s, 3),
                                 linearity_text(link)};
    if (goodput) row.push_back(fixed(100 * link.goodput->goodput, 1));
    row.push_back(i == 0 ? "-" : gain_text(link.gain));
    row.push_back(gain_text(link.cumulative));
    row.push_back(i == 0 ? "-" : fixed(100 * link.share, 1));
    if (!result.reversed.empty()) {
      row.push_back(i == 0 ? "-" : gain_text(result.reversed[i].gain));
      row.push_back(i == 0 ? "-" : fixed(100 * result.reversed[i].share, 1));
    }
    table.add_row(row);
  }
  if (format == Format::kTable) {
    std::cout << result.chain.name << ": " << result.links.size() - 1 << " factor(s) from " << result.chain.base
              << ", each link one `ctwin run` of the chain so far\n";
  }
  table.print(std::cout, format, format == Format::kTable ? "  " : "");
  if (format != Format::kTable) return;
  std::cout << "gpu_util: (compute + optimizer) / step; linearity: tokens/s / (tokens/s on one node, or one model "
               "replica, x the GPU ratio), weak scaling";
  if (goodput) std::cout << "; goodput: the Monte Carlo of `ctwin goodput` with the chain's settings";
  std::cout << "\ngain: " << (goodput ? "tokens/s x goodput" : "tokens/s")
            << " over the link above; cumulative: over the base; share: log(gain) / log(whole gain "
            << gain_text(result.total_gain) << "), so the shares add to 100 %";
  if (!result.reversed.empty()) std::cout << "; *_reversed: the same factor applied with the chain run last to first";
  std::cout << '\n';
}

void declare_explain_options(CLI::App& command, ExplainOptions& o) {
  command.add_option("chain", o.chain, "chain file (scenarios/explain/*.json): a base scenario and factors")->required();
  command.add_flag("--reverse", o.reverse,
                   "also apply the factors last to first: a factor whose gain changes with the order interacts "
                   "with the others");
  command.add_option("--format", o.format, "table, json or csv")->capture_default_str();
  command.add_option("--figure", o.figure, figure_help("the waterfall of tokens/s, factor by factor"));
}

// The query: the chain as loaded, and whether it also runs last to first.
struct ExplainCall {
  api::ExplainChain chain;
  api::ExplainQuery query;
  Format format = Format::kTable;
};

ExplainCall explain_call(const ExplainOptions& o) {
  const Format format = parse_format(o.format);
  if (!o.figure.empty()) check_figure_path(o.figure);
  api::ExplainQuery query;
  query.reverse = o.reverse;
  query.progress = item_progress("links");
  return ExplainCall{api::load_explain_chain(o.chain), std::move(query), format};
}

api::ExplainResult evaluate_explain_call(const ExplainCall& call) {
  api::EvalContext context;
  return api::evaluate_explain(call.chain, context, call.query);
}

void print_explain(const api::ExplainResult& result, const ExplainCall& call, const ExplainOptions& o) {
  if (call.format == Format::kJson) {
    std::cout << json_text(api::explain_json(result), 2) << '\n';
  } else {
    print_links(result, call.format);
  }
  if (!o.figure.empty()) write_figure("explain", api::explain_json(result), o.figure);
}

}  // namespace

Action add_explain_command(CLI::App& app) {
  return add_command(app, CommandParts<ExplainOptions, ExplainCall, api::ExplainResult>{
                              "explain",
                              "The waterfall: what each factor of a chain of scenario changes buys in tokens/s, MFU and "
                              "comm share",
                              declare_explain_options, explain_call, evaluate_explain_call, print_explain});
}

}  // namespace ctwin::cli
