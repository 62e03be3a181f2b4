#include "ctwin/studies/size.hpp"

#include <algorithm>
#include <cmath>
#include <mutex>

#include "ctwin/api/build_warnings.hpp"
#include "ctwin/api/data_dir.hpp"
#include "ctwin/api/report_json.hpp"
#include "ctwin/studies/size_front.hpp"
#include "ctwin/studies/size_parts.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/core/json_reader.hpp"
#include "ctwin/core/parallel_for.hpp"
#include "ctwin/fabric/topology.hpp"

namespace ctwin::api {
namespace {

constexpr std::size_t kMaxOptions = 4096;
constexpr std::int64_t kMaxAlltoallGpus = 2048;  // the direct algorithm's limit (collectives/plan.cpp)
// Four draws of the hash caught 1.41 of the 1.43 % that eight gave on the 10k example's 1:1 build
// (docs/size.md, "ECMP hash luck") for half again the time of one: the default on flow.
constexpr int kDefaultFlowSeeds = 4;

// The option's changes: --set first, then one value per axis.
std::vector<Override> option_changes(const SizeQuery& query, const std::vector<std::size_t>& index) {
  std::vector<Override> changes = query.changes;
  for (std::size_t a = 0; a < query.vary.size(); ++a) changes.push_back({query.vary[a].path, query.vary[a].values[index[a]]});
  return changes;
}

// `--vary cluster=a.json,b.json` (or `--set cluster=...`): the option's topology file itself, so that
// different kinds of fabric (a dragonfly beside a fat tree) are options of one table; every other
// change then edits that file.
constexpr const char* kTopologyField = "cluster";

Build option_build(const SizeQuery& query, std::vector<Override> changes, std::string origin) {
  Build build;
  build.cluster = query.cluster;
  for (auto change = changes.begin(); change != changes.end();) {
    if (change->path != kTopologyField) {
      ++change;
      continue;
    }
    if (!change->value.is_string()) throw InputError(origin, "", "cluster= takes topology files (topologies/*.json)");
    build.cluster = change->value.get<std::string>();
    change = changes.erase(change);
  }
  build.gpus = query.gpus;
  build.changes = std::move(changes);
  build.changes_origin = std::move(origin);
  return build;
}

std::optional<double> busbw(const Build& build, collectives::Op op, EvalContext& context) {
  collectives::CollectiveQuery query;
  query.op = op;
  query.sizes = {Bytes(std::int64_t{1} << 30)};
  query.network = network::ModelKind::kAnalytical;
  const auto result = evaluate_collective(build, query, context);
  if (result.rows.empty()) return std::nullopt;
  return result.rows.front().busbw_GBps;
}

SizeWorkload run_workload(const std::string& file, const nlohmann::json& cluster_document, const SizeQuery& query,
                          EvalContext& context) {
  // The option's cluster goes in inline, so that the scenario's own cluster and its overrides
  // of it are replaced whole.
  const Scenario scenario = Scenario::load(file)
                                .with("cluster", cluster_document)
                                .with("network", std::string(network::name(query.network)));
  ScalingOptions options;
  for (int k = query.scales - 1; k >= 0; --k) {
    const std::int64_t gpus = query.gpus >> k;
    if (gpus > 0 && (options.gpus.empty() || gpus > options.gpus.back())) options.gpus.push_back(gpus);
  }
  options.batch = analysis::BatchPolicy::kPerReplica;
  options.step.report_only = true;
  if (query.network == network::ModelKind::kFlow) options.step.flow_sample = query.flow_sample;
  const analysis::ScalingStudy study = evaluate_scaling(scenario, context, options);
  SizeWorkload workload{file, study.model, {}, study.error_band};
  for (const auto& point : study.points) {
    SizeWorkloadPoint out;
    out.gpus = point.gpus;
    out.global_batch = point.global_batch;
    out.invalid = point.invalid;
    if (point.invalid.empty()) {
      static_cast<replay::StepFigures&>(out) = replay::figures_of(point.report);
      out.linearity = point.linearity;
    }
    workload.points.push_back(out);
  }
  return workload;
}

// Seed 0 is the option's own run; the others replay the first workload at full scale only, with the
// hash seeded on top of any seed the build already names.
std::vector<double> tokens_per_s_by_seed(const nlohmann::json& document, const SizeOption& option,
                                         const SizeQuery& query, int seeds, EvalContext& context) {
  const SizeWorkloadPoint& own = option.workloads.front().points.back();
  if (!own.invalid.empty()) return {};
  std::vector<double> tokens{own.tokens_per_s};
  SizeQuery full_only = query;
  full_only.scales = 1;
  const std::int64_t base = document.at("fabric").value("ecmp_seed", std::int64_t{0});
  for (int seed = 1; seed < seeds; ++seed) {
    nlohmann::json seeded = document;
    seeded["fabric"]["ecmp_seed"] = base + seed;
    const SizeWorkload workload = run_workload(query.workloads.front(), seeded, full_only, context);
    tokens.push_back(workload.points.back().tokens_per_s);
  }
  return tokens;
}

const SizeWorkloadPoint* full_scale(const SizeOption& option) {
  if (option.workloads.empty() || option.workloads.front().points.empty()) return nullptr;
  const SizeWorkloadPoint& point = option.workloads.front().points.back();
  return point.invalid.empty() ? &point : nullptr;
}

void mark_front(SizeResult& result) {
  std::vector<FrontPoint> points;
  for (const SizeOption& option : result.options) {
    const SizeWorkloadPoint* full = full_scale(option);
    const bool ran = option.invalid.empty() && full != nullptr;
    const bool priced = ran && option.bill.fully_priced();
    FrontPoint point{ran, priced, priced ? option.bill.capex() : 0, ran ? option.ranked_tokens_per_s() : 0};
    // A tolerance the user gave is theirs to judge by; otherwise the seeds' range counts too.
    if (ran && !result.tie_tolerance_given && !option.tokens_per_s_by_seed.empty()) {
      const auto [low, high] = std::minmax_element(option.tokens_per_s_by_seed.begin(), option.tokens_per_s_by_seed.end());
      point.lowest = *low;
      point.highest = *high;
    }
    points.push_back(point);
  }
  const std::vector<FrontMark> marks = mark_front(points, result.tie_tolerance);
  for (std::size_t i = 0; i < marks.size(); ++i) {
    result.options[i].tie_group = marks[i].tie_group;
    result.options[i].pareto = marks[i].pareto;
  }
}

void mark_part_dominance(SizeResult& result) {
  std::vector<const fabric::BillOfMaterials*> bills;
  for (const SizeOption& option : result.options) bills.push_back(option.invalid.empty() ? &option.bill : nullptr);
  const auto dominance = no_more_parts_than(bills);
  for (std::size_t i = 0; i < dominance.size(); ++i) result.options[i].costs_no_more_than = dominance[i];
}

}  // namespace

// On the 10k example (docs/size.md) the scalable-unit sample's step is 0.41–0.96 % short of the
// full replay's, always short, so the gap between two options can move by 0.55 % of a step: two
// options closer than 0.6 % cannot be told apart by the sample. The full replay is exact to its
// own model; 0.1 % keeps rounding in the schedule from reading as a difference.
double sample_resolution(network::ModelKind network, replay::FlowSample sample) {
  if (network != network::ModelKind::kFlow) return 0.01;
  return sample == replay::FlowSample::kFull ? 0.001 : 0.006;
}

// What ECMP hash luck alone moves a flow step: the widest spread over eight seeds of the 10k
// example's fabric options (validation/ecmp/hash_luck_10k.csv, docs/size.md "ECMP hash luck"),
// rounded up. A real fabric's hash is one draw of it, so options closer than this are a coin toss.
constexpr double kHashLuck10k = 0.015;

double default_tie_tolerance(network::ModelKind network, replay::FlowSample sample) {
  const double resolution = sample_resolution(network, sample);
  return network == network::ModelKind::kFlow ? std::max(resolution, kHashLuck10k) : resolution;
}

double SizeOption::ranked_tokens_per_s() const {
  if (!tokens_per_s_by_seed.empty()) {
    double sum = 0;
    for (const double tokens : tokens_per_s_by_seed) sum += tokens;
    return sum / static_cast<double>(tokens_per_s_by_seed.size());
  }
  const SizeWorkloadPoint* full = full_scale(*this);
  return full != nullptr ? full->tokens_per_s : 0;
}

double SizeOption::hash_spread() const {
  if (tokens_per_s_by_seed.size() < 2) return 0;
  const auto [low, high] = std::minmax_element(tokens_per_s_by_seed.begin(), tokens_per_s_by_seed.end());
  return *high > 0 ? (*high - *low) / *high : 0;
}

SizeResult evaluate_size(const SizeQuery& query, EvalContext& context) {
  if (query.gpus < 1) throw InputError("--gpus", "", "must be at least 1");
  if (query.scales < 1 || query.scales > 8) throw InputError("--scales", "", "must be 1 to 8");
  if (query.network != network::ModelKind::kAnalytical && query.network != network::ModelKind::kFlow) {
    throw InputError("--network", "", "a workload's step runs on analytical or flow");
  }
  const bool on_flow = query.network == network::ModelKind::kFlow;
  const int seeds = query.ecmp_seeds.value_or(on_flow && !query.workloads.empty() ? kDefaultFlowSeeds : 1);
  if (seeds < 1 || seeds > 16) throw InputError("--ecmp-seeds", "", "must be 1 to 16");
  if (seeds > 1 && (!on_flow || query.workloads.empty())) {
    throw InputError("--ecmp-seeds", "", "needs a workload on the flow network (analytical routes no flows)");
  }
  if (query.tie_tolerance && !(*query.tie_tolerance >= 0 && *query.tie_tolerance <= 0.5)) {
    throw InputError("--tie-tolerance", "", "must be from 0 to 0.5 (a share of tokens/s, 0.01 for 1 %)");
  }
  // 1.0 is a facility that draws nothing beyond its IT load; above 3 the figure is a typo.
  if (query.pue && !(*query.pue >= 1 && *query.pue <= 3)) {
    throw InputError("--pue", "", "must be from 1 to 3 (facility energy over IT energy)");
  }
  fabric::check_floor(query.floor);
  SizeResult result;
  result.gpus = query.gpus;
  result.axes = query.vary;
  result.network = query.network;
  result.flow_sample = query.network == network::ModelKind::kFlow ? query.flow_sample : replay::FlowSample::kFull;
  result.tie_tolerance = query.tie_tolerance.value_or(default_tie_tolerance(result.network, result.flow_sample));
  result.ecmp_seeds = seeds;
  result.pue = query.pue;
  result.tie_tolerance_given = query.tie_tolerance.has_value();
  const fabric::PartsCatalog catalog =
      fabric::load_parts_catalog(data_dir() / "models" / "parts",
                                 query.parts.empty() ? "" : resolve_data_path(query.parts).string());
  result.catalog_files = catalog.files;
  const std::string parts_origin = query.parts.empty() ? (data_dir() / "models" / "parts").string() : query.parts;

  // The base build must stand, and so must each value alone on it: otherwise the mistake is the
  // user's and names the flag; only combinations of good values may be invalid.
  const fabric::ClusterSpec base = load_build(option_build(query, query.changes, "--set"));
  result.cluster = base.name;
  std::size_t count = 1;
  for (const GridAxis& axis : query.vary) {
    for (const auto& value : axis.values) {
      std::vector<Override> changes = query.changes;
      changes.push_back({axis.path, value});
      (void)load_build(option_build(query, changes, "--vary"));
    }
    count *= axis.values.size();
    if (count > kMaxOptions) throw InputError("--vary", "", "more than 4,096 combinations");
  }
  // A workload that cannot be read or resolved on its own is the user's mistake, not a row.
  for (const std::string& file : query.workloads) (void)Scenario::load(file).resolve(&context.profiles());

  std::vector<std::vector<std::size_t>> indices(count, std::vector<std::size_t>(query.vary.size()));
  for (std::size_t i = 0; i < count; ++i) {
    std::size_t rest = i;
    for (std::size_t a = query.vary.size(); a-- > 0;) {
      indices[i][a] = rest % query.vary[a].values.size();
      rest /= query.vary[a].values.size();
    }
  }
  result.options.resize(count);
  std::mutex progress_mutex;
  std::size_t done = 0;
  parallel_for(count, query.jobs, [&](std::size_t i) {
    SizeOption& option = result.options[i];
    for (std::size_t a = 0; a < query.vary.size(); ++a) option.values.push_back(query.vary[a].texts[indices[i][a]]);
    const Build build = option_build(query, option_changes(query, indices[i]), "--vary");
    try {
      nlohmann::json document = load_json_file(resolve_named(build.cluster, DataKind::kTopology));
      apply_changes(document, build.changes, build.changes_origin);
      const fabric::ClusterSpec spec = load_build(build);
      option.summary = evaluate_fabric(build, context);
      const int nodes = option.summary.nodes;
      option.bill = fabric::bill_of_materials(spec, *fabric::plan_topology(spec, nodes), option.summary, catalog,
                                              query.floor, parts_origin);
      option.warnings = build_warnings(document, spec, query.gpus);
      if (query.collectives) {
        option.all_reduce_busbw_GBps = busbw(build, collectives::Op::kAllReduce, context);
        Build smaller = build;
        smaller.gpus = std::min(query.gpus, kMaxAlltoallGpus);
        option.alltoall_gpus = smaller.gpus;
        option.alltoall_busbw_GBps = busbw(smaller, collectives::Op::kAlltoall, context);
      }
      for (const std::string& file : query.workloads) option.workloads.push_back(run_workload(file, document, query, context));
      if (seeds > 1) option.tokens_per_s_by_seed = tokens_per_s_by_seed(document, option, query, seeds, context);
    } catch (const InputError& error) {
      // A part missing from the catalog is the user's to fix whatever the combination.
      if (error.message().find("parts catalog") != std::string::npos) throw;
      option.invalid = error.what();
    }
    if (query.progress) {
      const std::lock_guard<std::mutex> lock(progress_mutex);
      query.progress(++done, count);
    }
  });

  for (SizeOption& option : result.options) {
    if (!option.invalid.empty()) continue;
    if (!option.bill.currency.empty()) result.currency = option.bill.currency;
    const SizeWorkloadPoint* point = full_scale(option);
    if (point != nullptr && option.bill.fully_priced() && point->model_tflops_per_gpu > 0) {
      option.cost_per_pflops = option.bill.capex() / (point->model_tflops_per_gpu * static_cast<double>(point->gpus) / 1000);
    }
    const double watts = option.bill.power().watts();
    if (point != nullptr && watts > 0) {
      option.gflops_per_watt = point->model_tflops_per_gpu * 1e3 * static_cast<double>(point->gpus) / watts;
    }
    if (query.pue) option.facility_power_kW = option.bill.power().kilowatts() * *query.pue;
  }
  // Spreads measured here replace the 10k figure, option by option; the sample's own error stays the floor.
  if (seeds > 1 && !query.tie_tolerance) result.tie_tolerance = sample_resolution(result.network, result.flow_sample);
  mark_front(result);
  mark_part_dominance(result);
  return result;
}

}  // namespace ctwin::api
