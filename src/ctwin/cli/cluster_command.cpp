// ctwin cluster: several jobs on one build, replayed together on one flow simulation of its
// fabric, each compared with itself alone (docs/cluster.md, "Several jobs on one build").

#include <iostream>
#include <memory>
#include <string>
#include <variant>

#include <CLI/CLI.hpp>

#include "ctwin/cli/command_pattern.hpp"
#include "ctwin/cli/commands.hpp"
#include "ctwin/cli/output.hpp"
#include "ctwin/cli/progress_line.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/core/json_text.hpp"
#include "ctwin/api/public_studies.hpp"

namespace ctwin::cli {
namespace {

struct ClusterOptions {
  std::string jobs;
  std::string format = "table";
  int steps = 0;  // 0: the file's
  bool compare_policies = false;
};

std::string node_range_text(const std::vector<std::int64_t>& nodes) {
  std::string out;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    std::size_t k = i;
    while (k + 1 < nodes.size() && nodes[k + 1] == nodes[k] + 1) ++k;
    if (!out.empty()) out += ",";
    out += std::to_string(nodes[i]);
    if (k > i) out += "-" + std::to_string(nodes[k]);
    i = k;
  }
  // A scattered job's list would fill the screen; the JSON holds every node.
  constexpr std::size_t kWidest = 32;
  if (out.size() > kWidest) out = out.substr(0, out.rfind(',', kWidest - 4)) + ",...";
  return out;
}

// Only with background traffic, so that every other report keeps its bytes.
void print_background_table(const api::ClusterStudy& study) {
  if (study.background.empty()) return;
  std::cout << "background streams (rate asked, mean rate got in the shared window):\n";
  bool any_less = false;
  for (const auto& b : study.background) {
    any_less = any_less || b.less_than_asked;
    std::cout << "  " << b.label << ": " << fixed(b.rate_Gbps, 2) << " Gb/s asked, " << fixed(b.achieved_Gbps, 2)
              << " Gb/s got" << (b.less_than_asked ? " (less: its links are full)" : "") << '\n';
  }
  if (any_less) std::cout << "  a stream takes its max-min share of full links, not its whole rate\n";
  std::cout << "each job alone beside the background:\n";
  for (const auto& job : study.jobs) {
    std::cout << "  " << job.name << ": " << fixed(job.alone_with_background->step_time_s, 4) << " s against "
              << fixed(job.alone.step_time_s, 4) << " s alone, slowdown " << fixed(job.background_slowdown, 3) << '\n';
  }
}

void print_cluster_table(const api::ClusterStudy& study) {
  std::cout << study.jobs.size() << " jobs on " << study.build_nodes << " nodes (" << study.build_gpus << " GPUs) of "
            << study.cluster;
  if (study.busy_nodes > 0) std::cout << ", " << study.busy_nodes << " nodes busy with other tenants";
  std::cout << "; " << study.steps << " step" << (study.steps == 1 ? "" : "s") << " each on one flow simulation\n";
  Table table({"job", "gpus", "placement", "nodes", "leaves", "start s", "alone s", "shared s", "slowdown",
               "exposed comm alone s", "exposed comm shared s"});
  for (const auto& job : study.jobs) {
    table.add_row({job.name, std::to_string(job.resolved.gpus), job.placement, node_range_text(job.nodes),
                   std::to_string(job.leaves), fixed(job.start_s, 4), fixed(job.alone.step_time_s, 4),
                   fixed(job.shared_mean.step_time_s, 4), fixed(job.slowdown, 3), fixed(job.alone.exposed_comm_s, 4),
                   fixed(job.shared_mean.exposed_comm_s, 4)});
  }
  table.print(std::cout, Format::kTable, "  ");
  print_background_table(study);
  for (const auto& job : study.jobs) {
    if (job.contended.empty()) continue;
    std::cout << job.name << " shares with other jobs:\n";
    for (const auto& l : job.contended) {
      std::cout << "  " << l.label << ": " << fixed(l.bytes / 1e9, 2) << " GB its own, "
                << fixed(l.others_bytes / 1e9, 2) << " GB others'\n";
    }
  }
}

void print_cluster_csv(const api::ClusterStudy& study) {
  std::vector<std::string> columns{"job", "scenario", "gpus", "placement", "nodes", "leaves", "start_s", "alone_step_s",
                                   "shared_step_s", "slowdown", "alone_exposed_comm_s", "shared_exposed_comm_s",
                                   "fabric_bytes"};
  const bool background = !study.background.empty();  // its columns only then: other files keep their bytes
  if (background) {
    columns.emplace_back("alone_with_background_step_s");
    columns.emplace_back("background_slowdown");
  }
  Table table(columns);
  for (const auto& job : study.jobs) {
    std::vector<std::string> row{job.name, job.scenario, std::to_string(job.resolved.gpus), job.placement,
                                 node_range_text(job.nodes), std::to_string(job.leaves), fixed(job.start_s, 9),
                                 fixed(job.alone.step_time_s, 9), fixed(job.shared_mean.step_time_s, 9),
                                 fixed(job.slowdown, 6), fixed(job.alone.exposed_comm_s, 9),
                                 fixed(job.shared_mean.exposed_comm_s, 9), fixed(job.fabric_bytes, 0)};
    if (background) {
      row.push_back(fixed(job.alone_with_background->step_time_s, 9));
      row.push_back(fixed(job.background_slowdown, 6));
    }
    table.add_row(row);
  }
  table.print(std::cout, Format::kCsv);
}

void print_policies_table(const api::ClusterPolicyComparison& c) {
  std::cout << "the jobs placed by each node policy (jobs with node lists keep them); " << c.free_gpus << " free GPUs\n";
  Table summary({"policy", "placed jobs", "did not fit", "placed GPUs", "allocated %", "utilisation %"});
  for (const auto& p : c.policies) {
    std::string unplaced;
    for (const auto& name : p.study.unplaced) unplaced += (unplaced.empty() ? "" : ",") + name;
    summary.add_row({p.policy, std::to_string(p.study.jobs.size()), unplaced.empty() ? "-" : unplaced,
                     std::to_string(p.placed_gpus), fixed(100 * p.allocated_share, 1), fixed(100 * p.utilisation, 1)});
  }
  summary.print(std::cout, Format::kTable, "  ");
  Table jobs({"policy", "job", "nodes", "leaves", "best s", "alone s", "shared s", "slowdown"});
  for (const auto& p : c.policies) {
    for (const auto& job : p.study.jobs) {
      std::size_t j = 0;
      while (j < c.jobs.size() && c.jobs[j] != job.name) ++j;
      jobs.add_row({p.policy, job.name, node_range_text(job.nodes), std::to_string(job.leaves), fixed(c.best_step_s[j], 4),
                    fixed(job.alone.step_time_s, 4), fixed(job.shared_mean.step_time_s, 4), fixed(job.slowdown, 3)});
    }
  }
  jobs.print(std::cout, Format::kTable, "  ");
}

void declare_cluster_options(CLI::App& command, ClusterOptions& o) {
  command.add_option("jobs", o.jobs, "JOBS file: the build (cluster, nodes), its jobs and any background streams (docs/input-formats.md)")
      ->required();
  command.add_option("--steps", o.steps, "steps each job runs together with the others (default: the file's steps, else 1)");
  command.add_flag("--compare-policies", o.compare_policies,
                   "the scheduler what-if: every job the file places by policy placed by packed, spread, topology_aware "
                   "and fragmented in turn; jobs that do not fit, throughput, utilisation of the free GPUs");
  command.add_option("--format", o.format, "table, json or csv (one row per job; table or json with --compare-policies)")
      ->capture_default_str();
}

// The query: the JOBS file as read, and whether each policy places its jobs in turn.
struct ClusterCall {
  api::ClusterQuery query;
  bool compare_policies = false;
  Format format = Format::kTable;
};

using ClusterResult = std::variant<api::ClusterStudy, api::ClusterPolicyComparison>;

ClusterCall cluster_call(const ClusterOptions& o) {
  const Format format = parse_format(o.format);
  api::ClusterQuery query = api::cluster_query_from_file(o.jobs);
  if (o.steps != 0) query.steps = o.steps;
  if (o.compare_policies && format == Format::kCsv) {
    throw InputError("--format", "", "--compare-policies prints a table or json");
  }
  return ClusterCall{std::move(query), o.compare_policies, format};
}

ClusterResult evaluate_cluster_call(const ClusterCall& call) {
  api::EvalContext context;
  if (call.compare_policies) {
    const ProgressLine line("placing and replaying the jobs of " + call.query.source + " by each policy");
    return api::compare_cluster_policies(call.query, context);
  }
  const ProgressLine line("replaying the jobs of " + call.query.source);
  return api::evaluate_cluster(call.query, context);
}

void print_cluster(const ClusterResult& result, const ClusterCall& call, const ClusterOptions&) {
  if (const auto* comparison = std::get_if<api::ClusterPolicyComparison>(&result)) {
    if (call.format == Format::kJson) {
      std::cout << json_text(api::cluster_policies_json(*comparison), 2) << '\n';
    } else {
      print_policies_table(*comparison);
    }
    return;
  }
  const api::ClusterStudy& study = std::get<api::ClusterStudy>(result);
  if (call.format == Format::kJson) {
    std::cout << json_text(api::cluster_json(study), 2) << '\n';
  } else if (call.format == Format::kCsv) {
    print_cluster_csv(study);
  } else {
    print_cluster_table(study);
  }
}

}  // namespace

Action add_cluster_command(CLI::App& app) {
  return add_command(app, CommandParts<ClusterOptions, ClusterCall, ClusterResult>{
                              "cluster",
                              "Several jobs on one build, replayed together on one flow simulation of its fabric: each "
                              "job's step alone and shared, its slowdown and the links it shares (docs/cluster.md)",
                              declare_cluster_options, cluster_call, evaluate_cluster_call, print_cluster});
}

}  // namespace ctwin::cli
