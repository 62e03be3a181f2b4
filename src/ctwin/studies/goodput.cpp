#include "ctwin/studies/goodput.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <utility>

#include "ctwin/api/data_dir.hpp"
#include "ctwin/api/scenario.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/core/limits.hpp"
#include "ctwin/core/rate_parse.hpp"
#include "ctwin/core/unit_parse.hpp"
#include "ctwin/fabric/fabric.hpp"
#include "ctwin/fabric/summary.hpp"
#include "ctwin/replay/step_figures.hpp"
#include "ctwin/replay/training_step.hpp"

namespace ctwin::api {
namespace {

/// A duration flag in hours, at most `limit_hours`: a larger one is a unit slip, not a plan.
double hours_option(const std::string& text, const std::string& flag, double limit_hours) {
  double hours = 0;
  try {
    hours = parse_hours(text);
  } catch (const UnitError& e) {
    throw InputError(flag, "", e.what());
  }
  if (hours > limit_hours) {
    throw InputError(flag, "", "'" + text + "' is more than " + std::to_string(static_cast<long long>(limit_hours)) + " h");
  }
  return hours;
}

// A step's time and throughput under the names every report gives them (replay/step_figures.hpp).
nlohmann::json goodput_step_json(double step_time_s, std::optional<double> tokens_per_s) {
  replay::StepFigures f;
  f.step_time_s = step_time_s;
  f.tokens_per_s = tokens_per_s.value_or(0);
  if (!tokens_per_s) return replay::to_json(f, {replay::Figure::kStepTime});
  return replay::to_json(f, {replay::Figure::kStepTime, replay::Figure::kTokensPerS});
}

nlohmann::json spread_json(const analysis::Spread& s) {
  return {{"mean", s.mean}, {"stddev", s.stddev}, {"p5", s.p5}, {"p50", s.p50}, {"p95", s.p95}};
}

nlohmann::json study_json(const replay::Scenario& scenario, const analysis::ReliabilityModel& model,
                          const analysis::GoodputStudy& s) {
  const auto& r = s.result;
  const auto& c = s.config;
  nlohmann::json causes = nlohmann::json::array();
  for (std::size_t i = 0; i < s.sources.size(); ++i) {
    const auto& src = s.sources[i];
    // A dual-plane leaf down slows the job instead of interrupting it: no interruption expected.
    const bool slows = std::find(s.slowdown_sources.begin(), s.slowdown_sources.end(), i) != s.slowdown_sources.end();
    causes.push_back({{"cause", src.component->name}, {"group", src.component->group},
                      {"per", analysis::to_string(src.component->per)}, {"units", src.units},
                      {"rate_per_unit_hour", src.component->rate_per_hour},
                      {"takes", slows ? "slowdown" : analysis::to_string(src.component->takes)},
                      {"nodes_taken", slows ? 0 : src.nodes_taken}, {"assumed", src.component->assumed},
                      {"expected", slows ? 0.0 : src.rate_per_hour * c.duration_s / 3600}, {"simulated_mean", r.interruptions_by_cause[i]}});
  }
  nlohmann::json out{
      {"scenario", scenario.source},
      {"reliability_model", model.file},
      {"days", c.duration_s / 86400},
      {"runs", c.runs},
      {"seed", c.seed},
      {"gpus", s.counts.gpus},
      {"nodes", s.counts.nodes},
      {"failures_per_hour", s.failures_per_hour},
      {"model_mtbf_h", s.mtbf_s / 3600},
      {"checkpoint",
       {{"tier", s.checkpoint.tier}, {"asynchronous", s.checkpoint.asynchronous}, {"bytes", s.checkpoint.size.bytes},
        {"bytes_per_parameter", s.checkpoint.size.bytes_per_parameter}, {"writer_nodes", s.checkpoint.size.writer_nodes},
        {"blocking_s", s.checkpoint.blocking_s}, {"persist_s", s.checkpoint.persist_s}, {"load_s", s.checkpoint.load_s}}},
      {"spares",
       {{"hot", c.spares.hot}, {"cold", c.spares.cold}, {"hot_swap_s", c.spares.hot_swap_s},
        {"cold_swap_s", c.spares.cold_swap_s}, {"on_empty", analysis::to_string(c.spares.on_empty)}}},
      {"interval_s", c.interval_s},
      {"young_daly_interval_s", s.young_daly_s},
      {"young_daly_ettr", s.young_daly_ettr},
      {"formula_ettr", s.formula_ettr},
      {"expected_interruptions", r.expected_interruptions},
      {"interruptions", spread_json(r.interruptions)},
      {"ettr", spread_json(r.ettr)},
      {"goodput", spread_json(r.goodput)},
      {"mtbf_h", r.mtbf_s / 3600},
      {"mttr_h", r.mttr_s / 3600},
      {"availability", r.availability},
      {"hot_pool_dry_probability", r.hot_dry_probability},
      {"pool_dry_probability", r.pool_dry_probability},
      {"time_h_per_run",
       {{"useful", r.time.useful_s / 3600}, {"checkpoint", r.time.checkpoint_s / 3600}, {"lost_work", r.time.lost_work_s / 3600},
        {"detection", r.time.detection_s / 3600}, {"waiting_for_spares", r.time.waiting_s / 3600},
        {"switchover", r.time.switchover_s / 3600}, {"restart", r.time.restart_s / 3600},
        {"shrunk_equivalent", r.time.shrunk_s / 3600}}},
      {"causes", causes}};
  out.update(goodput_step_json(s.step_time_s, s.tokens_per_s));
  if (r.time.straggler_s > 0) out["time_h_per_run"]["stragglers"] = r.time.straggler_s / 3600;
  if (r.time.slowdown_s > 0) out["time_h_per_run"]["leaf_down_slowdown"] = r.time.slowdown_s / 3600;
  if (s.search) {
    nlohmann::json grid = nlohmann::json::array();
    for (const auto& p : s.search->points) grid.push_back({{"interval_s", p.interval_s}, {"ettr", p.ettr}});
    out["interval_search"] = {{"best_interval_s", s.search->best_interval_s}, {"best_ettr", s.search->best_ettr}, {"grid", grid}};
  }
  return out;
}


// The closed form beside the simulation: rate · GPUs · D · duration · mean over the stages hit of (1 − 1/effect).
double expected_straggler_loss_s(const GoodputStragglers& st, const analysis::GoodputStudy& study) {
  double loss = 0;
  for (const auto& [stage, e] : st.effects) loss += 1 - 1 / e.effect;
  const double events = st.rate_per_gpu_hour * static_cast<double>(study.counts.gpus) * study.config.duration_s / 3600;
  return st.effects.empty() ? 0 : events * st.duration_s * loss / static_cast<double>(st.effects.size());
}

}  // namespace

analysis::StorageTier checkpoint_tier(const std::string& storage, const std::string& storage_file,
                                      const fabric::ClusterSpec& cluster, const std::string& origin) {
  // "auto": one checkpoint model with the loader's storage where the cluster's storage can take
  // writes (a shared tier that gives write_per_server), else the file's parallel file system.
  if (storage == "auto") {
    if (cluster.storage) {
      for (const auto& t : cluster.storage->tiers) {
        if (t.shared() && t.write_per_server.bytes_per_second() > 0) {
          return analysis::storage_tier_of_cluster(cluster, t.name, origin);
        }
      }
    }
    return checkpoint_tier("pfs", storage_file, cluster, origin);
  }
  // "cluster:NAME" checkpoints through a tier of the scenario's own storage (docs/io.md).
  const std::string kClusterTier = "cluster:";
  std::vector<analysis::StorageTier> tiers;
  if (storage.rfind(kClusterTier, 0) == 0) {
    tiers.push_back(analysis::storage_tier_of_cluster(cluster, storage.substr(kClusterTier.size()), origin));
  } else {
    tiers = analysis::load_storage_tiers(resolve_data_path(storage_file));
  }
  std::string names;
  for (const auto& t : tiers) {
    if (t.name == storage) return t;
    names += (names.empty() ? "" : ", ") + t.name;
  }
  throw InputError(origin, "", "unknown tier '" + storage + "' (expected " + names +
                                   ", auto, or cluster:NAME for a tier of the cluster's storage)");
}

GoodputEvaluation evaluate_goodput(const GoodputQuery& q, EvalContext& context) {
  if (!q.scenario) throw InputError("scenario", "", "a scenario file is required (or --validate)");
  if (!(q.days > 0) || !std::isfinite(q.days)) throw InputError("--days", "", "give the run's length in days, e.g. --days 54");
  if (q.runs < 1 || q.runs > 1'000'000) throw InputError("--runs", "", "between 1 and 1000000");
  if (const auto problem = limits::degraded_share_problem(q.straggler_speed)) {
    throw InputError("--straggler-speed", "", *problem);
  }
  GoodputEvaluation g{q.scenario->resolve(&context.profiles()),
                      std::make_shared<const analysis::ReliabilityModel>(
                          analysis::load_reliability_model(resolve_data_path(q.reliability))),
                      {}, {}, std::nullopt, std::nullopt, std::nullopt};
  const replay::Scenario& scenario = g.scenario;
  const analysis::StorageTier tier = checkpoint_tier(q.storage, q.storage_file, scenario.cluster, "--storage");

  const fabric::Fabric built(scenario.cluster, static_cast<int>(scenario.gpus));
  const fabric::FabricSummary summary = fabric::summarize(built);

  analysis::GoodputInputs in;
  in.days = q.days;
  in.runs = q.runs;
  in.seed = q.seed;
  in.checkpoint.fp32_master = q.fp32_master;
  if (q.interval != "auto") in.interval_s = hours_option(q.interval, "--checkpoint-interval", 87660) * 3600;
  in.spares.hot = analysis::parse_spare_count(q.spares, "--spares", summary.nodes, summary.scalable_units);
  in.spares.cold = analysis::parse_spare_count(q.cold_spares, "--cold-spares", summary.nodes, summary.scalable_units);
  in.spares.hot_swap_s = hours_option(q.hot_swap, "--hot-swap", 168) * 3600;
  in.spares.cold_swap_s = hours_option(q.cold_swap, "--cold-swap", 8766) * 3600;
  if (q.on_empty == "wait") {
    in.spares.on_empty = analysis::OnEmptyPool::kWait;
  } else if (q.on_empty == "shrink") {
    in.spares.on_empty = analysis::OnEmptyPool::kShrink;
  } else {
    throw InputError("--on-empty", "", "unknown policy '" + q.on_empty + "' (expected wait or shrink)");
  }
  std::optional<replay::CheckpointTiming> simulated_checkpoint;
  if (!q.step_time.empty()) {
    in.step_time_s = hours_option(q.step_time, "--step-time", 24) * 3600;
    if (!(in.step_time_s > 0)) throw InputError("--step-time", "", "must be positive");
    const double tokens = static_cast<double>(scenario.split.global_batch * scenario.split.seq_len);
    in.tokens_per_s = tokens / in.step_time_s;
  } else {
    const replay::SimulatedStep step = replay::simulate_step(scenario);
    in.step_time_s = step.report.step_time_s;
    in.tokens_per_s = step.report.tokens_per_s;
    simulated_checkpoint = step.report.checkpoint;
  }
  // One checkpoint model: the scenario's, as `run` prices it, where no option overrides it.
  g.checkpoint = take_scenario_checkpoint(scenario, summary.nodes,
                                          q.storage == "auto" ? std::nullopt : std::optional<analysis::StorageTier>(tier),
                                          q.fp32_master, simulated_checkpoint, in);
  try {
    in.straggler_rate_per_gpu_hour = parse_rate_per_hour(q.straggler_rate);
  } catch (const UnitError& e) {
    throw InputError("--straggler-rate", "", e.what());
  }
  in.straggler_duration_s = hours_option(q.straggler_duration, "--straggler-duration", 8766) * 3600;

  // Shrinking: the smaller jobs' steps, each replica count simulated once.
  std::optional<ShrunkJobs> shrunk;
  if (in.spares.on_empty == analysis::OnEmptyPool::kShrink) {
    const std::int64_t replicas = scenario.split.data_parallel(scenario.gpus);
    shrunk.emplace(*q.scenario, context, replicas, scenario.gpus / replicas);
    in.replica_share = [&shrunk](long long running) { return shrunk->share(running); };
  }
  // Stragglers: each stage's slowdown with one of its GPUs throttled, simulated once per stage.
  // A dual-plane leaf failure: the job slows for the leaf's repair instead of restarting.
  if (leaf_failure_slows(scenario.cluster)) {
    g.leaf_down = dual_plane_leaf_effect(*q.scenario, context);
    in.leaf_down_effect = g.leaf_down->effect;
  }
  std::optional<StragglerEffects> effects;
  if (in.straggler_rate_per_gpu_hour > 0) {
    effects.emplace(*q.scenario, context, q.straggler_speed);
    in.straggler_effect = [&effects](long long gpu) { return effects->effect(gpu); };
  }
  g.study = analysis::run_goodput_study(scenario, summary, *g.model, tier, in);
  g.study.config.replica_share = nullptr;  // the callbacks refer to this function's locals
  g.study.config.stragglers.effect = nullptr;
  if (shrunk) g.shrunk_jobs = shrunk->jobs();
  if (effects) {
    GoodputStragglers st;
    st.rate_per_gpu_hour = in.straggler_rate_per_gpu_hour;
    st.speed = q.straggler_speed;
    st.duration_s = in.straggler_duration_s;
    st.healthy_step_time_s = effects->healthy_step_time_s();
    st.effects = effects->effects();
    st.expected_lost_s = expected_straggler_loss_s(st, g.study);
    g.stragglers = st;
  }
  return g;
}

nlohmann::json goodput_json(const GoodputEvaluation& g) {
  nlohmann::json out = study_json(g.scenario, *g.model, g.study);
  if (g.checkpoint) add_checkpoint_origin_json(*g.checkpoint, out["checkpoint"]);
  if (!g.shrunk_jobs.empty()) {
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& [replicas, j] : g.shrunk_jobs) {
      nlohmann::json row{{"replicas", replicas}, {"gpus", j.gpus}, {"global_batch", j.global_batch}, {"share", j.share}};
      row.update(goodput_step_json(j.step_time_s, j.tokens_per_s));
      if (!j.invalid.empty()) row["invalid"] = j.invalid;
      rows.push_back(row);
    }
    out["shrunk_jobs"] = rows;
  }
  if (g.stragglers) {
    const GoodputStragglers& st = *g.stragglers;
    nlohmann::json stages = nlohmann::json::array();
    for (const auto& [stage, e] : st.effects) {
      nlohmann::json row{{"stage", stage}, {"gpu", e.gpu}, {"effect", e.effect}};
      row.update(goodput_step_json(e.step_time_s, std::nullopt));
      stages.push_back(std::move(row));
    }
    const auto& s = g.study;
    out["stragglers"] = {
        {"rate_per_gpu_hour", st.rate_per_gpu_hour},
        {"rate_source", "given (assumed)"},
        {"speed", st.speed},
        {"duration_s", st.duration_s},
        {"healthy_step_time_s", st.healthy_step_time_s},
        {"expected_events", st.rate_per_gpu_hour * static_cast<double>(s.counts.gpus) * s.config.duration_s / 3600},
        {"events_mean", s.result.straggler_events},
        {"lost_h_per_run", s.result.time.straggler_s / 3600},
        {"expected_lost_h_per_run", st.expected_lost_s / 3600},
        {"stages", stages}};
  }
  if (g.leaf_down) {
    const LeafDownEffect& e = *g.leaf_down;
    const auto& s = g.study;
    out["dual_plane_leaf_failures"] = {
        {"degrade", e.degrade},
        {"healthy_step_time_s", e.healthy_step_time_s},
        {"degraded_step_time_s", e.step_time_s},
        {"slowdown", e.effect},
        {"failures_per_hour", s.slowdowns_per_hour},
        {"expected_events", s.slowdowns_per_hour * s.config.duration_s / 3600},
        {"events_mean", s.result.slowdown_events},
        {"lost_h_per_run", s.result.time.slowdown_s / 3600},
        {"expected_lost_h_per_run", s.expected_slowdown_s / 3600}};
  }
  return out;
}

}  // namespace ctwin::api
