#include "ctwin/plan/plan.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <utility>

#include "ctwin/api/build_warnings.hpp"
#include "ctwin/plan/plan_bound.hpp"
#include "ctwin/plan/plan_placement.hpp"
#include "ctwin/plan/plan_pool.hpp"
#include "ctwin/plan/plan_progress.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/core/parallel_for.hpp"
#include "ctwin/replay/step_limits.hpp"

namespace ctwin::api {
namespace {

// A candidate's parts smaller than this share of the first's step are noise, not a reason.
constexpr double kWhyShare = 0.005;
constexpr std::size_t kWhyParts = 3;

PlanScore score_of(const replay::StepReport& r) {
  PlanScore s;
  static_cast<replay::StepFigures&>(s) = replay::figures_of(r);
  const double hardware = r.hardware_flops_per_step;
  s.recompute_s = hardware > 0 ? r.breakdown.compute_s * (hardware - r.model_flops_per_step) / hardware : 0;
  s.compute_s = r.breakdown.compute_s - s.recompute_s;
  s.optimizer_s = r.breakdown.optimizer_s;
  s.exposed_s = r.breakdown.exposed_comm_s;
  return s;
}

}  // namespace

double objective_value(const PlanScore& s, PlanObjective objective) {
  return objective == PlanObjective::kMfu ? s.mfu : s.tokens_per_s;
}

std::vector<std::pair<std::string, double>> plan_score_parts(const PlanScore& s) {
  return {{"compute", s.compute_s},         {"recompute", s.recompute_s},     {"bubble", s.bubble_s},
          {"exposed_tp", s.exposed_s.tp},   {"exposed_pp", s.exposed_s.pp},   {"exposed_dp", s.exposed_s.dp},
          {"exposed_cp", s.exposed_s.cp},   {"exposed_ep", s.exposed_s.ep},   {"optimizer", s.optimizer_s}};
}

namespace {

std::vector<PartDelta> why_of(const PlanScore& mine, const PlanScore& first) {
  const auto a = plan_score_parts(mine);
  const auto b = plan_score_parts(first);
  std::vector<PartDelta> deltas;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double delta = a[i].second - b[i].second;
    if (std::abs(delta) >= kWhyShare * first.step_time_s) deltas.push_back({a[i].first, delta});
  }
  std::stable_sort(deltas.begin(), deltas.end(),
                   [](const PartDelta& x, const PartDelta& y) { return std::abs(x.delta_s) > std::abs(y.delta_s); });
  if (deltas.size() > kWhyParts) deltas.resize(kWhyParts);
  return deltas;
}

}  // namespace

void finish_plan(PlanResult& result) {
  auto& entries = result.entries;
  const PlanObjective objective = result.objective;
  std::vector<PlanEntry*> valid;
  for (auto& e : entries) {
    if (e.invalid.empty()) valid.push_back(&e);
  }
  std::stable_sort(valid.begin(), valid.end(), [objective](const PlanEntry* x, const PlanEntry* y) {
    const double a = objective_value(x->analytical, objective), b = objective_value(y->analytical, objective);
    return a != b ? a > b : x->index < y->index;
  });
  for (std::size_t r = 0; r < valid.size(); ++r) {
    valid[r]->analytical_rank = static_cast<std::int64_t>(r + 1);
    if (r >= result.flow_top) valid[r]->flow.reset();
  }
  std::stable_sort(entries.begin(), entries.end(), [objective](const PlanEntry& x, const PlanEntry& y) {
    const int gx = x.invalid.empty() ? (x.flow ? 0 : 1) : 2, gy = y.invalid.empty() ? (y.flow ? 0 : 1) : 2;
    if (gx != gy) return gx < gy;
    if (gx == 0) {
      const double a = objective_value(*x.flow, objective), b = objective_value(*y.flow, objective);
      if (a != b) return a > b;
    }
    if (gx <= 1) return x.analytical_rank < y.analytical_rank;
    return x.index < y.index;
  });
  if (entries.empty() || !entries.front().invalid.empty()) return;
  const PlanEntry& first = entries.front();
  for (auto& e : entries) {
    if (!e.invalid.empty()) break;
    e.why = e.flow && first.flow ? why_of(*e.flow, *first.flow) : why_of(e.analytical, first.analytical);
  }
}

namespace {

using Base = PlanSetup;

// The split every candidate starts from: the scenario's settings the search does not vary
// (cp_comm, the training settings) with every searched field at its one-GPU value.
workload::ParallelConfig searched_fields_cleared(workload::ParallelConfig split) {
  split.tp = split.pp = split.vpp = split.cp = split.ep = split.expert_tp = 1;
  split.first_stage_layers.reset();
  split.last_stage_layers.reset();
  split.embedding_in_split = split.loss_in_split = false;
  split.pipeline_layout.clear();
  split.dp.reset();
  split.sequence_parallel = split.distributed_optimizer = false;
  split.zero = 0;
  split.recompute = workload::Recompute::kNone;
  split.schedule = workload::PipelineSchedule::kOneFOneB;
  split.micro_batch = split.global_batch = 1;
  return split;
}

// The scenario read with its own split replaced by one GPU's (which every model accepts): the
// planner supplies the split, so the scenario's may not fit the --gpus or batch asked for.
Base resolve_base(const Scenario& scenario, const std::vector<Override>& settings, const PlanOptions& options,
                  EvalContext& context) {
  Scenario set = scenario;
  for (const auto& s : settings) set = set.with(s.path, s.value);
  replay::Scenario read = set.resolve_for_split(&context.profiles());
  // The placeholder split of one GPU is checked without the placement, which is for the planned job
  // (a node list of its nodes): each candidate is placed on it (plan_placement.hpp).
  const replay::PlacementSpec placement = std::exchange(read.placement, replay::PlacementSpec{});
  Base base;
  base.gpus = options.gpus ? *options.gpus : read.gpus;
  if (base.gpus < 1 || base.gpus > (std::int64_t{1} << 24)) {
    throw InputError("--gpus", "", std::to_string(base.gpus) + " is outside [1, 16777216]");
  }
  base.global_batch = read.split.global_batch;
  base.resolved = read.with_split(searched_fields_cleared(read.split), 1);
  base.resolved.placement = placement;
  base.resolved.gpus = base.gpus;
  base.resolved.split.global_batch = base.global_batch;
  return base;
}

// The scenario a candidate runs on: the plan's, or its pool assignment's.
const replay::Scenario& resolved_for(const Base& base, std::size_t assignment) {
  return base.assigned.empty() ? base.resolved : base.assigned[assignment];
}

PlanEntry evaluate_candidate(const Base& base, const PlanCandidate& candidate, network::ModelKind network,
                             EvalContext& context, PlanEntry entry) {
  replay::Scenario s = resolved_for(base, candidate.assignment);
  s.split = candidate.split;
  s.network = network;
  entry.index = candidate.index;
  entry.split = candidate.split;
  entry.assignment = candidate.assignment;
  if (!base.assigned.empty()) entry.pool = pool_choice_of(s, candidate.split);
  entry.dp = s.split.data_parallel(s.gpus);
  entry.micro_batches = s.split.micro_batches(s.gpus);
  try {
    replay::check_step_within_limits(s);
    StepQuery query;
    query.report_only = true;  // the plan keeps only the report
    query.flow_sample = base.flow_sample;
    const auto evaluation = evaluate_resolved(s, context, query);
    const PlanScore score = score_of(evaluation.report);
    if (entry.pool) entry.pool->dp_micro_batches = evaluation.report.dp_shares;
    if (network == network::ModelKind::kFlow) entry.flow = score;
    else entry.analytical = score;
  } catch (const InputError& e) {
    entry.invalid = e.what();
  }
  return entry;
}


double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The analytical phase by bound and prune: every candidate's bound first, then replays in order
// of the best objective the bound allows (ties by index, the exhaustive order), until the next
// candidate's best is below the `needed`-th best replayed objective. A candidate left out has an
// objective below that of each of the `needed` best, so it ranks after all of them, and each of
// them ranks where the exhaustive plan puts it (every better candidate was replayed). Strictly
// below: a candidate tying with the threshold could still rank ahead by its index.
template <typename Report>
std::vector<PlanEntry> bounded_analytical_phase(const Base& base, const std::vector<const PlanCandidate*>& mine,
                                                std::size_t needed, const PlanOptions& options, EvalContext& context,
                                                const Report& report, double& bound_wall_s) {
  const auto start = std::chrono::steady_clock::now();
  std::vector<ObjectiveBound> bounds(mine.size());
  replay::LayerOpsCache layers;  // the candidates share one base: their layers' ops, built once each
  parallel_for(mine.size(), options.jobs, [&](std::size_t i) {
    bounds[i] = bound_objective(resolved_for(base, mine[i]->assignment), mine[i]->split, options.objective, context,
                                &layers);
    report("bound", mine.size());
  });
  bound_wall_s = seconds_since(start);
  std::vector<PlanEntry> entries;
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < mine.size(); ++i) {
    if (!bounds[i].invalid.empty()) {
      // Refused before the replay by the same checks the replay makes first: the same message.
      PlanEntry e;
      e.index = mine[i]->index;
      e.split = mine[i]->split;
      e.assignment = mine[i]->assignment;
      if (!base.assigned.empty()) e.pool = pool_choice_of(base.assigned[e.assignment], e.split);
      e.dp = e.split.data_parallel(base.gpus);
      e.micro_batches = e.split.micro_batches(base.gpus);
      e.invalid = bounds[i].invalid;
      entries.push_back(std::move(e));
    } else {
      order.push_back(i);
    }
  }
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (bounds[a].replay != bounds[b].replay) return bounds[a].replay;
    return bounds[a].best > bounds[b].best;  // stable: ties stay in index order
  });
  std::vector<double> objectives;  // of the valid replayed candidates
  std::size_t next = 0;
  while (next < order.size()) {
    if (objectives.size() >= needed && !bounds[order[next]].replay) {
      std::vector<double> sorted = objectives;
      std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(needed - 1), sorted.end(),
                       std::greater<>());
      if (bounds[order[next]].best < sorted[needed - 1]) break;
    }
    const std::size_t end = std::min(order.size(), next + kBoundedReplayBatch);
    std::vector<PlanEntry> batch(end - next);
    parallel_for(batch.size(), options.jobs, [&](std::size_t b) {
      batch[b] = evaluate_candidate(base, *mine[order[next + b]], network::ModelKind::kAnalytical, context, {});
      batch[b].replayed = true;
      report("analytical", 0);  // how many the bound leaves to replay is known only at the end
    });
    for (auto& e : batch) {
      if (e.invalid.empty()) objectives.push_back(objective_value(e.analytical, options.objective));
      entries.push_back(std::move(e));
    }
    next = end;
  }
  // Enumeration order, as the exhaustive phase leaves them for finish_plan.
  std::stable_sort(entries.begin(), entries.end(), [](const PlanEntry& a, const PlanEntry& b) { return a.index < b.index; });
  return entries;
}

}  // namespace

PlanObjective parse_plan_objective(const std::string& text) {
  if (text == "throughput") return PlanObjective::kThroughput;
  if (text == "mfu") return PlanObjective::kMfu;
  throw InputError("--objective", "", "unknown objective '" + text + "' (expected throughput or mfu)");
}

std::string plan_objective_name(PlanObjective objective) {
  return objective == PlanObjective::kMfu ? "mfu" : "throughput";
}

PlannedSpace plan_space_of(const PlanSetup& setup, const Scenario& scenario, const PlanOptions& options) {
  PlannedSpace out;
  out.space = enumerate_plan_space({setup.resolved.model, setup.resolved.cluster, plan_memory_gpu(setup.resolved),
                                    setup.gpus, setup.resolved.split, setup.memory_margin},
                                   setup.axes);
  if (setup.assigned.empty()) drop_pool_unfit(out.space, setup.resolved, setup.memory_margin);
  else expand_pool_assignments(out.space, setup.assigned, setup.memory_margin);
  drop_unplaceable(out.space, setup.resolved);
  const PlanSpace& space = out.space;
  if (space.survivors.empty()) {
    const RuleCount* last = space.rules.last_removing();
    const bool placed = last != nullptr && last->rule == "placement" && !options.placement.is_null();
    throw InputError(placed ? "--placement" : options.fixes.empty() ? scenario.source() : "--fix", "",
                     "no split is left of " + std::to_string(space.enumerated) + " candidates" +
                         (last ? ": rule '" + last->rule + "' removed the last " + std::to_string(last->removed) +
                                     " (" + last->example + ")"
                               : std::string()));
  }
  PlanHeader& h = out.header;
  h.model = setup.resolved.model.name;
  h.cluster = setup.resolved.cluster.name;
  h.gpu = setup.resolved.gpu.name;
  h.gpus = setup.gpus;
  h.global_batch = setup.global_batch;
  h.seq_len = setup.resolved.split.seq_len;
  h.objective = options.objective;
  h.fixes = options.fixes;
  h.placement = plan_placement_json(setup.resolved.placement);
  if (!setup.assigned.empty()) {
    for (const auto& g : setup.resolved.pool.groups) h.pool_groups.push_back(g.name);
    h.pool_assignments = static_cast<std::int64_t>(setup.assigned.size());
  }
  h.memory_margin = setup.memory_margin;
  const auto& sources = setup.resolved.gpu.sources;
  if (const auto scale = sources.find("training_time_scale"); scale != sources.end()) {
    h.calibration.compute = true;
    h.calibration.compute_source = scale->second;
  }
  h.calibration.network = !setup.resolved.calibration.empty();
  h.error_band = analysis::error_band_key(setup.resolved);
  h.warnings = scenario_build_warnings(setup.resolved, setup.gpus);
  h.enumerated = space.enumerated;
  h.survivors = static_cast<std::int64_t>(space.survivors.size());
  return out;
}

std::string plan_top_note(std::size_t top, std::size_t candidates, unsigned jobs) {
  return "top " + std::to_string(top) + " is more than the " + std::to_string(candidates) +
         " valid candidates: all " + std::to_string(candidates) + " are listed, each replayed (no bound can prune), " +
         std::to_string(jobs) + (jobs == 1 ? " at a time" : " at once");
}

PlanResult evaluate_plan(const Scenario& given, EvalContext& context, const PlanOptions& options) {
  if (options.shard_count < 1 || options.shard_index >= options.shard_count) {
    throw InputError("--shard", "", "shard index outside the shard count");
  }
  // The placement is a field of the planned scenario, so shards of another placement have another fingerprint.
  const Scenario scenario = with_plan_placement(given, options.placement);
  const PlanSetup base = prepare_plan(scenario, context, options);
  PlannedSpace planned = plan_space_of(base, scenario, options);
  PlanSpace& space = planned.space;

  PlanResult result;
  static_cast<PlanHeader&>(result) = std::move(planned.header);
  result.flow_top = options.flow_top;
  result.flow_sample = options.flow_sample;
  result.rules = space.rules;
  result.shard_index = options.shard_index;
  result.shard_count = options.shard_count;
  result.scenario_fingerprint = scenario_fingerprint(scenario);

  std::vector<const PlanCandidate*> mine;
  for (const auto& c : space.survivors) {
    if (static_cast<std::size_t>(c.index) % options.shard_count == options.shard_index) mine.push_back(&c);
  }
  const PlanProgress report(options.progress);
  const auto analytical_start = std::chrono::steady_clock::now();
  const std::size_t needed = options.top == 0 ? 0 : std::max(options.top, options.flow_top);
  if (options.note && !options.exhaustive && options.shard_count == 1 && options.top > mine.size()) {
    options.note(plan_top_note(options.top, mine.size(), options.jobs));
  }
  if (options.exhaustive || options.shard_count > 1 || needed == 0 || needed >= mine.size()) {
    result.entries.resize(mine.size());
    parallel_for(mine.size(), options.jobs, [&](std::size_t i) {
      result.entries[i] = evaluate_candidate(base, *mine[i], network::ModelKind::kAnalytical, context, {});
      report("analytical", mine.size());
    });
    result.replayed = static_cast<std::int64_t>(mine.size());
  } else {
    result.entries = bounded_analytical_phase(base, mine, needed, options, context, report, result.bound_wall_s);
    result.exhaustive = false;
    result.bounded = static_cast<std::int64_t>(mine.size());
    result.replayed = static_cast<std::int64_t>(
        std::count_if(result.entries.begin(), result.entries.end(), [](const PlanEntry& e) { return e.replayed; }));
  }

  result.analytical_wall_s = seconds_since(analytical_start);
  const auto flow_start = std::chrono::steady_clock::now();

  // Phase 2 on this run's best flow_top by analytical rank (finish() orders them).
  const std::size_t keep = result.flow_top;
  result.flow_top = 0;
  finish_plan(result);
  result.flow_top = keep;
  std::vector<std::size_t> best;
  for (std::size_t i = 0; i < result.entries.size() && best.size() < keep; ++i) {
    if (result.entries[i].invalid.empty()) best.push_back(i);
  }
  parallel_for(best.size(), options.jobs, [&](std::size_t b) {
    PlanEntry& entry = result.entries[best[b]];
    const PlanCandidate candidate{entry.index, entry.split, entry.assignment};
    entry = evaluate_candidate(base, candidate, network::ModelKind::kFlow, context, entry);
    report("flow", best.size());
  });
  for (auto& e : result.entries) {
    // A step the flow replay refuses after the analytical one ran is not a candidate either.
    if (!e.invalid.empty()) e.flow.reset();
  }
  finish_plan(result);
  result.flow_wall_s = seconds_since(flow_start);
  return result;
}

PlanSetup prepare_plan(const Scenario& scenario, EvalContext& context, const PlanOptions& options) {
  std::vector<Override> fixes;
  for (const auto& text : options.fixes) fixes.push_back(parse_override(text, "--fix"));
  // Axis fixes need the model's axes first; every other fix is a setting of the scenario.
  std::vector<Override> settings;
  PlanAxes probe;
  for (const auto& fix : fixes) {
    if (!apply_fix(probe, fix)) settings.push_back(fix);
  }
  PlanSetup base;
  try {
    base = resolve_base(scenario, settings, options, context);
  } catch (const InputError& e) {
    if (settings.empty()) throw;
    throw InputError("--fix", "", e.what());
  }
  base.assigned = pool_assignments(base.resolved);
  base.axes = default_axes(base.resolved.model, base.gpus);
  for (const auto& fix : fixes) (void)apply_fix(base.axes, fix);
  base.flow_sample = options.flow_sample;
  if (!(options.memory_margin >= 0 && options.memory_margin <= 0.5)) {
    throw InputError("--memory-margin", "", "must be 0 to 50 % of HBM");
  }
  base.memory_margin = options.memory_margin;
  return base;
}

PlanEntry evaluate_plan_candidate(const PlanSetup& setup, const PlanCandidate& candidate, network::ModelKind network,
                                  EvalContext& context) {
  return evaluate_candidate(setup, candidate, network, context, {});
}

}  // namespace ctwin::api
