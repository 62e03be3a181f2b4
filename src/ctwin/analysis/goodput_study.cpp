#include "ctwin/analysis/goodput_study.hpp"

#include <algorithm>
#include <cmath>

#include "ctwin/core/error.hpp"
#include "ctwin/fabric/summary.hpp"

namespace ctwin::analysis {

GoodputStudy run_goodput_study(const replay::Scenario& scenario, const fabric::FabricSummary& build,
                               const ReliabilityModel& model, const StorageTier& tier, const GoodputInputs& in) {
  if (!(in.days > 0) || !std::isfinite(in.days)) throw InputError("--days", "", "the run must last a positive number of days");
  if (in.days > 3650) throw InputError("--days", "", "at most 3650 days (ten years)");
  if (!(in.step_time_s > 0)) throw InputError("goodput", "", "the step time must be positive");
  GoodputStudy s;
  s.step_time_s = in.step_time_s;
  s.tokens_per_s = in.tokens_per_s;
  s.counts = count_components(build, scenario.cluster);
  s.sources = failure_sources(model, s.counts);
  s.failures_per_hour = total_rate_per_hour(s.sources);
  const auto slows = [&](const FailureSource& source) {
    return in.leaf_down_effect && source.component->takes == FailureScope::kLeaf;
  };
  for (std::size_t i = 0; i < s.sources.size(); ++i) {
    if (!slows(s.sources[i])) continue;
    s.slowdown_sources.push_back(i);
    s.slowdowns_per_hour += s.sources[i].rate_per_hour;
    s.failures_per_hour -= s.sources[i].rate_per_hour;
  }
  const long long nodes = s.counts.nodes;
  if (in.spares.hot + in.spares.cold > nodes) {
    throw InputError("--spares", "", std::to_string(in.spares.hot + in.spares.cold) + " spare nodes, more than the " +
                                         std::to_string(nodes) + " nodes of the build they protect");
  }
  s.checkpoint = in.checkpoint_cost ? *in.checkpoint_cost
                                    : checkpoint_cost(checkpoint_size(scenario, nodes, in.checkpoint), tier, nodes);

  const auto& split = scenario.split;
  const long long replica_gpus = split.tp * split.pp * split.cp;
  const long long per_node = std::max(1, scenario.cluster.server.gpus);
  s.layout.replicas = split.data_parallel(scenario.gpus);
  s.layout.nodes_per_replica = std::max<long long>(1, (replica_gpus + per_node - 1) / per_node);
  s.layout.replicas_per_node = std::max<long long>(1, per_node / replica_gpus);

  GoodputConfig& c = s.config;
  c.duration_s = in.days * 86400;
  for (const auto& source : s.sources) {
    if (slows(source)) {
      // Kept as a cause of no rate, so reports list every class in the model's order.
      c.causes.push_back({source.component->name, 0, 0, 0});
      c.slowdowns.push_back({source.component->name, source.rate_per_hour / 3600, source.component->repair_hours * 3600,
                             *in.leaf_down_effect});
      continue;
    }
    c.causes.push_back({source.component->name, source.rate_per_hour / 3600, source.nodes_taken,
                        source.component->repair_hours * 3600});
  }
  c.detection_s = model.detection_hours * 3600;
  c.launch_s = model.launch_hours * 3600;
  c.load_s = s.checkpoint.load_s;
  c.blocking_s = s.checkpoint.blocking_s;
  c.persist_s = s.checkpoint.persist_s;
  c.spares = in.spares;
  c.layout = s.layout;
  c.replica_share = in.replica_share;
  c.stragglers.rate_per_s = in.straggler_rate_per_gpu_hour * static_cast<double>(scenario.gpus) / 3600;
  c.stragglers.duration_s = in.straggler_duration_s;
  c.stragglers.gpus = scenario.gpus;
  c.stragglers.effect = in.straggler_effect;
  c.runs = in.runs;
  c.seed = in.seed;

  const double rate_s = s.failures_per_hour / 3600;
  s.mtbf_s = rate_s > 0 ? 1 / rate_s : INFINITY;
  double node_share = 0;
  for (const auto& source : s.sources) {
    if (source.nodes_taken > 0 && s.failures_per_hour > 0 && !slows(source)) {
      node_share += source.rate_per_hour / s.failures_per_hour;
    }
  }
  s.recovery_s = c.detection_s + node_share * in.spares.hot_swap_s + c.launch_s + c.load_s;
  // The interval must leave room for the write (blocking) and the upload (asynchronous).
  const double lowest = std::max(c.blocking_s, c.persist_s - c.blocking_s);
  const auto rounded = [&](double tau) { return std::max(1.0, std::ceil(tau / in.step_time_s - 1e-9)) * in.step_time_s; };
  if (rate_s > 0) {
    s.young_daly_s = young_daly_interval_s(c.blocking_s, s.mtbf_s);
    s.young_daly_ettr = first_order_ettr(s.young_daly_s, c.blocking_s, s.mtbf_s, s.recovery_s);
  }
  if (in.interval_s) {
    c.interval_s = rounded(*in.interval_s);
  } else if (rate_s <= 0) {
    c.interval_s = rounded(c.duration_s);  // nothing fails: one checkpoint at the end
  } else {
    const double centre = std::max(s.young_daly_s, 2 * lowest + in.step_time_s);
    const double lo = std::max(centre / 4, lowest + in.step_time_s);
    const double hi = std::max(centre * 4, lo * 2);
    s.search = search_interval(c, lo, hi, in.search_points, in.step_time_s);
    c.interval_s = s.search->best_interval_s;
  }
  s.result = simulate_goodput(c);
  for (const auto& cause : c.slowdowns) {
    s.expected_slowdown_s += cause.rate_per_s * c.duration_s * cause.repair_mean_s * (1 - 1 / cause.effect) *
                             c.interval_s / (c.interval_s + c.blocking_s);
  }
  if (rate_s > 0) s.formula_ettr = first_order_ettr(c.interval_s, c.blocking_s, s.mtbf_s, s.recovery_s);
  return s;
}

}  // namespace ctwin::analysis
