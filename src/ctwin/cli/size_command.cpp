// ctwin size: what each build option costs, draws and delivers, as a table, JSON or CSV.

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <optional>

#include <CLI/CLI.hpp>

#include "ctwin/api/error_band.hpp"
#include "ctwin/api/public_studies.hpp"
#include "ctwin/cli/command_pattern.hpp"
#include "ctwin/cli/commands.hpp"
#include "ctwin/cli/error_band_output.hpp"
#include "ctwin/cli/figure_output.hpp"
#include "ctwin/cli/output.hpp"
#include "ctwin/cli/progress_line.hpp"
#include "ctwin/cli/warnings_output.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/core/json_text.hpp"
#include "ctwin/core/overrides.hpp"
#include "ctwin/core/parallel_for.hpp"

namespace ctwin::cli {
namespace {

struct SizeOptions {
  std::string cluster;
  std::int64_t gpus = 0;
  std::vector<std::string> vary;
  std::vector<std::string> overrides;
  std::vector<std::string> workloads;
  std::string parts;
  std::string format = "table";
  std::string figure;
  int scales = 4;
  std::string network = "flow";
  std::string flow_sample = "su";
  std::optional<double> tie_tolerance;
  std::optional<int> ecmp_seeds;
  std::optional<double> pue;
  bool no_collectives = false;
  int servers_per_rack = 0;
  int racks_per_row = 16;
  unsigned jobs = default_jobs();
};

std::string money(double amount) { return fixed(amount / 1e6, 2); }

std::string optional_cell(const std::optional<double>& value, int decimals) {
  return value ? fixed(*value, decimals) : "-";
}

std::string priced(const fabric::CategoryTotal& total) {
  return total.unpriced_lines > 0 ? money(total.capex) + "+?" : money(total.capex);
}

// Options sharing a letter deliver the same within the model's resolution; an option alone in its
// group gets no letter, so that the column draws the eye only to what cannot be told apart. One
// pass over the options: letters in group order, for groups of two or more.
std::map<int, std::string> tie_letters(const api::SizeResult& result) {
  std::map<int, int> members;
  for (const auto& option : result.options) {
    if (option.tie_group >= 0) ++members[option.tie_group];
  }
  std::map<int, std::string> letters;
  int letter = 0;
  for (const auto& [group, count] : members) {
    if (count < 2) continue;
    letters[group] = letter < 26 ? std::string(1, static_cast<char>('A' + letter)) : "T" + std::to_string(letter + 1);
    ++letter;
  }
  return letters;
}

std::string network_line(const api::SizeResult& result) {
  if (result.network != network::ModelKind::kFlow) {
    return "analytical network (each collective alone: fabric options differ by noise)";
  }
  return result.flow_sample == replay::FlowSample::kFull
             ? std::string("flow network, every op's traffic on one shared fabric")
             : "flow network, shared fabric, one " + std::string(result.flow_sample == replay::FlowSample::kReplica ? "replica" : "scalable unit") +
                   " of each stage standing for the others (--flow-sample " + replay::flow_sample_name(result.flow_sample) + ")";
}

std::string label(const api::SizeResult& result, const api::SizeOption& option) {
  std::string text;
  for (std::size_t a = 0; a < result.axes.size(); ++a) {
    if (a > 0) text += ", ";
    text += result.axes[a].path + "=" + option.values[a];
  }
  return text.empty() ? "base" : text;
}

// Switch tiers other than a fat tree's (a dragonfly's routers, the border switches of sites), in
// the order the options first name them: each gets a column after the fat tree's three.
std::vector<std::string> other_tiers(const api::SizeResult& result) {
  std::vector<std::string> tiers;
  for (const auto& option : result.options) {
    if (!option.invalid.empty()) continue;
    for (const auto& t : option.summary.switch_tiers) {
      const bool fat_tree = t.tier == "leaf" || t.tier == "spine" || t.tier == "core";
      if (!fat_tree && std::find(tiers.begin(), tiers.end(), t.tier) == tiers.end()) tiers.push_back(t.tier);
    }
  }
  return tiers;
}

// Capex ranks only priced builds; a pair where either is unpriced is ranked by its parts instead.
void print_part_dominance(const api::SizeResult& result) {
  bool first = true;
  for (const auto& option : result.options) {
    std::string than;
    for (const std::size_t j : option.costs_no_more_than) {
      const auto& other = result.options[j];
      if (option.bill.fully_priced() && other.bill.fully_priced()) continue;
      than += (than.empty() ? "" : ", ") + label(result, other);
    }
    if (than.empty()) continue;
    if (first) std::cout << "costs no more at any prices (needs no more of any part than the others named):\n";
    first = false;
    std::cout << "  " << label(result, option) << " than " << than << "\n";
  }
}

void print_table(const api::SizeResult& result, Format format) {
  std::vector<std::string> headers;
  for (const auto& axis : result.axes) headers.push_back(axis.path);
  const std::vector<std::string> extra_tiers = other_tiers(result);
  for (const char* column : {"leaf", "spine", "core"}) headers.emplace_back(column);
  headers.insert(headers.end(), extra_tiers.begin(), extra_tiers.end());
  for (const char* column : {"xcvrs", "cables", "racks", "servers_M", "switches_M", "optics_M", "capex_M", "power_kW"}) {
    headers.emplace_back(column);
  }
  if (result.pue) headers.emplace_back("facility_kW");
  for (const char* column : {"bisect_TBps", "ar_busbw_GBps"}) headers.emplace_back(column);
  // alltoall is simulated pair by pair, up to 2,048 GPUs: the header says at how many.
  std::int64_t a2a_gpus = 0;
  for (const auto& option : result.options) a2a_gpus = std::max(a2a_gpus, option.alltoall_gpus);
  headers.push_back(a2a_gpus > 0 && a2a_gpus < result.gpus ? "a2a_busbw_GBps@" + std::to_string(a2a_gpus)
                                                            : std::string("a2a_busbw_GBps"));
  const std::size_t workloads = result.options.empty() ? 0 : result.options.front().workloads.size();
  std::vector<std::int64_t> scales;
  for (const auto& option : result.options) {
    if (option.invalid.empty() && !option.workloads.empty()) {
      for (const auto& point : option.workloads.front().points) scales.push_back(point.gpus);
      break;
    }
  }
  for (std::size_t w = 0; w < workloads; ++w) {
    const std::string prefix = workloads > 1 ? "w" + std::to_string(w + 1) + "_" : "";
    headers.push_back(prefix + "tokens_per_s");
    headers.push_back(prefix + "tokens_per_s p10-p90");
    headers.push_back(prefix + "mfu_%");
    for (const std::int64_t gpus : scales) headers.push_back(prefix + "lin_" + std::to_string(gpus));
  }
  headers.emplace_back("per_PFLOPs_k");
  if (workloads > 0) headers.emplace_back("GFLOPs_per_W");
  if (result.ecmp_seeds > 1) {
    headers.emplace_back("mean_tokens_per_s");
    headers.emplace_back("hash_spread_%");
  }
  headers.emplace_back("tie");
  headers.emplace_back("pareto");
  headers.emplace_back("note");
  Table table(headers);
  const analysis::ErrorBands bands = api::load_bundled_error_bands();
  const std::map<int, std::string> letters = tie_letters(result);
  for (const auto& option : result.options) {
    std::vector<std::string> row = option.values;
    if (!option.invalid.empty()) {
      while (row.size() + 1 < headers.size()) row.emplace_back("-");
      row.push_back("invalid: " + option.invalid);
      table.add_row(row);
      continue;
    }
    auto tier = [&](const std::string& name) {
      for (const auto& t : option.summary.switch_tiers) {
        if (t.tier == name) return std::to_string(t.switches);
      }
      return std::string("0");
    };
    const auto& bill = option.bill;
    for (const char* name : {"leaf", "spine", "core"}) row.push_back(tier(name));
    for (const auto& name : extra_tiers) row.push_back(tier(name));
    for (const auto& cell :
         {std::to_string(bill.transceivers), std::to_string(bill.cables),
          std::to_string(bill.floor.server_racks + bill.floor.network_racks), priced(bill.servers), priced(bill.switches),
          priced(bill.optics), bill.fully_priced() ? money(bill.capex()) : money(bill.capex()) + "+?",
          fixed(bill.power().kilowatts(), 0) + (bill.fully_powered() ? "" : "+?")}) {
      row.push_back(cell);
    }
    if (option.facility_power_kW) row.push_back(fixed(*option.facility_power_kW, 0) + (bill.fully_powered() ? "" : "+?"));
    for (const auto& cell : {fixed(option.summary.bisection.gigabytes_per_second() / 1000, 1),
                             optional_cell(option.all_reduce_busbw_GBps, 1), optional_cell(option.alltoall_busbw_GBps, 1)}) {
      row.push_back(cell);
    }
    for (const auto& workload : option.workloads) {
      const auto& full = workload.points.back();
      const analysis::ErrorBand band = analysis::band_for(bands, workload.error_band);
      row.push_back(full.invalid.empty() ? fixed(full.tokens_per_s, 0) : "-");
      row.push_back(full.invalid.empty() ? interval_text(analysis::throughput_interval(full.tokens_per_s, *band.from), 0) : "-");
      row.push_back(full.invalid.empty() ? fixed(100 * full.mfu, 1) : "-");
      for (const auto& point : workload.points) row.push_back(point.invalid.empty() ? fixed(point.linearity, 3) : "-");
    }
    row.push_back(option.cost_per_pflops ? fixed(*option.cost_per_pflops / 1e3, 1) : "-");
    if (workloads > 0) {
      // Where a part's power is unknown the watts are short, so the figure is at most this.
      const std::string bound = bill.fully_powered() ? "" : "<=";
      row.push_back(option.gflops_per_watt ? bound + fixed(*option.gflops_per_watt, 1) : "-");
    }
    if (result.ecmp_seeds > 1) {
      const bool seeded = !option.tokens_per_s_by_seed.empty();
      row.push_back(seeded ? fixed(option.ranked_tokens_per_s(), 0) : "-");
      row.push_back(seeded ? fixed(100 * option.hash_spread(), 2) : "-");
    }
    const auto letter = letters.find(option.tie_group);
    row.push_back(letter == letters.end() ? "" : letter->second);
    row.push_back(option.pareto ? "*" : "");
    row.push_back(option.warnings.empty() ? "" : std::to_string(option.warnings.size()) + " warning(s)");
    table.add_row(row);
  }
  if (format == Format::kTable) {
    std::cout << result.cluster << " at " << result.gpus << " GPUs: " << result.options.size()
              << (result.options.size() == 1 ? " build option" : " build options") << "; money in millions of " << (result.currency.empty() ? "(unpriced)" : result.currency)
              << " (+? where a part has no price; per_PFLOPs_k: thousands per delivered model PFLOP/s of the first "
                 "workload), IT power in kW (sum of parts' maximum power)\n";
    for (std::size_t w = 0; w < workloads; ++w) {
      for (const auto& option : result.options) {
        if (option.invalid.empty()) {
          std::cout << (workloads > 1 ? "w" + std::to_string(w + 1) + ": " : "workload: ")
                    << option.workloads[w].model << " (" << option.workloads[w].scenario
                    << "), " << network_line(result) << ", global batch grown with data parallelism\n";
          print_band_source(std::cout, analysis::band_for(bands, option.workloads[w].error_band));
          break;
        }
      }
    }
  }
  table.print(std::cout, format, format == Format::kTable ? "  " : "");
  if (format != Format::kTable) return;
  if (result.ecmp_seeds > 1) {
    std::cout << "mean_tokens_per_s: the first workload at full scale over " << result.ecmp_seeds
              << " ECMP hash seeds (tokens_per_s is seed 0's, as ctwin run gives it); hash_spread_%: what the seeds "
                 "alone moved it\n";
  }
  const bool spreads = result.ecmp_seeds > 1 && !result.tie_tolerance_given;
  std::cout << "tie: options with the same letter deliver the first workload's "
            << (result.ecmp_seeds > 1 ? "mean " : "") << "tokens/s within " << fixed(100 * result.tie_tolerance, 1)
            << " % of each other, what the network model resolves"
            << (spreads ? ", or some hash seed of the slower beats some seed of the faster" : "")
            << "; pareto: no other option costs no more and delivers more "
               "beyond that, or the same for less\n";
  if (workloads > 0) {
    std::cout << "GFLOPs_per_W: model FLOP/s the first workload delivers at full scale per watt of IT power (<= where "
                 "a part's power is unknown)"
              << (result.pue ? "; facility_kW: IT power x PUE " + fixed(*result.pue, 2) : std::string()) << "\n";
  } else if (result.pue) {
    std::cout << "facility_kW: IT power x PUE " << fixed(*result.pue, 2) << "\n";
  }
  print_part_dominance(result);
  for (const auto& option : result.options) {
    if (option.warnings.empty()) continue;
    std::cout << "\n[" << label(result, option) << "]";
    print_warnings(std::cout, option.warnings);
  }
}

void declare_size_options(CLI::App& command, SizeOptions& o) {
  command.add_option("--cluster", o.cluster, "topology file (topologies/*.json)")->required();
  command.add_option("--gpus", o.gpus, "GPUs in the full build")->required()->check(CLI::Range(1, 1 << 24));
  command.add_option("--vary", o.vary,
                     "field=v1,v2,...: a topology field and its values, e.g. fabric.oversubscription.leaf=1,2,4, "
                     "or cluster=a.json,b.json: other topology files as options (a dragonfly beside a fat tree) "
                     "(repeatable: every combination)");
  command.add_option("--set", o.overrides, "override a topology field in every option: fabric.max_tiers=3");
  command.add_option("--workload", o.workloads,
                     "a scenario run on each option at 1/8, 1/4, 1/2 and all of the build (repeatable)");
  command.add_option("--parts", o.parts, "a parts file whose entries replace or add to models/parts/*.json");
  command.add_option("--scales", o.scales, "workload sizes, halving from the full build")->capture_default_str();
  command.add_option("--network", o.network,
                     "what the workloads run on: flow (every op's traffic on one shared fabric, so fabric options "
                     "differ) or analytical (each collective alone: faster, blind to contention)")
      ->capture_default_str();
  command.add_option("--flow-sample", o.flow_sample,
                     "on flow: su (one scalable unit of each stage stands for the others where the fabric is "
                     "rail-optimised), replica or full (exact, slower)")
      ->capture_default_str();
  command.add_option("--tie-tolerance", o.tie_tolerance,
                     "relative tokens/s difference below which options tie (default: the network model's resolution, "
                     "on flow the larger of the sample's error and the ECMP hash luck measured at 10k GPUs, "
                     "on analytical 0.01; docs/size.md)");
  command.add_option("--ecmp-seeds", o.ecmp_seeds,
                     "ECMP hash seeds the first workload replays at full scale per option: options are ranked on the "
                     "mean and the widest spread is the tie tolerance (default 4 on flow, 1 on analytical; each "
                     "extra seed costs one full-scale step)")
      ->check(CLI::Range(1, 16));
  command.add_flag("--no-collectives", o.no_collectives, "skip the 1 GiB all_reduce and alltoall predictions");
  command.add_option("--pue", o.pue,
                     "power usage effectiveness (facility energy over IT energy): adds each option's facility power "
                     "(IT power x PUE)");
  command.add_option("--servers-per-rack", o.servers_per_rack, "servers per rack (default: 4, or 1 for rack-scale nodes; up to 256, a cabinet of blades)");
  command.add_option("--racks-per-row", o.racks_per_row, "server racks per row")->capture_default_str();
  command.add_option("--format", o.format, "table, json or csv")->capture_default_str();
  command.add_option("--figure", o.figure,
                     figure_help("capex and IT power against the first workload's tokens/s, the Pareto front and ties"));
  command.add_option("--jobs", o.jobs, "options evaluated at once (default: one per core; results do not depend on it)")
      ->check(CLI::Range(1, 1024));
}

// The query is the library's; the format is the printer's.
struct SizeCall {
  api::SizeQuery query;
  Format format = Format::kTable;
};

SizeCall size_call(const SizeOptions& o) {
  SizeCall call;
  call.format = parse_format(o.format);
  if (!o.figure.empty()) check_figure_path(o.figure);
  api::SizeQuery& query = call.query;
  query.cluster = o.cluster;
  query.gpus = o.gpus;
  for (const auto& text : o.overrides) query.changes.push_back(parse_override(text, "--set"));
  for (const auto& text : o.vary) query.vary.push_back(api::parse_grid_axis(text, "--vary"));
  query.workloads = o.workloads;
  query.parts = o.parts;
  query.scales = o.scales;
  query.network = step_network(o.network);
  query.flow_sample = replay::parse_flow_sample(o.flow_sample, "--flow-sample");
  query.tie_tolerance = o.tie_tolerance;
  query.ecmp_seeds = o.ecmp_seeds;
  query.pue = o.pue;
  query.collectives = !o.no_collectives;
  query.floor.servers_per_rack = o.servers_per_rack;
  query.floor.racks_per_row = o.racks_per_row;
  query.jobs = o.jobs;
  query.progress = item_progress("build options");
  return call;
}

api::SizeResult evaluate_size_call(const SizeCall& call) {
  api::EvalContext context;
  return api::evaluate_size(call.query, context);
}

void print_size(const api::SizeResult& result, const SizeCall& call, const SizeOptions& o) {
  if (call.format == Format::kJson) {
    std::cout << json_text(api::size_json(result), 2) << '\n';
  } else {
    print_table(result, call.format);
  }
  if (!o.figure.empty()) write_figure("size", api::size_json(result), o.figure);
  // Each option's reason is printed above; a comparison with nothing to compare is still a
  // failure for a script that reads the exit code (issue 36: it exited 0).
  const auto valid = std::count_if(result.options.begin(), result.options.end(),
                                   [](const api::SizeOption& option) { return option.invalid.empty(); });
  if (valid == 0 && !result.options.empty()) {
    throw InputError(o.vary.empty() ? "--cluster" : "--vary", "",
                     "none of the " + std::to_string(result.options.size()) +
                         " build options can be built; the first: " + result.options.front().invalid);
  }
}

}  // namespace

Action add_size_command(CLI::App& app) {
  return add_command(app, CommandParts<SizeOptions, SizeCall, api::SizeResult>{
                              "size",
                              "Compare build options of a cluster: switches, optics, racks, capex, power, bandwidth and "
                              "training throughput",
                              declare_size_options, size_call, evaluate_size_call, print_size});
}

}  // namespace ctwin::cli
