#include "ctwin/replay/dp_shares.hpp"

#include <algorithm>
#include <utility>

#include "ctwin/replay/node_pool.hpp"
#include "ctwin/replay/proportional_shares.hpp"
#include "ctwin/replay/step_report.hpp"

namespace ctwin::replay {

std::vector<std::vector<std::vector<std::size_t>>> dp_replica_groups(const Scenario& s) {
  const std::int64_t dp = s.split.data_parallel(s.gpus);
  const std::int64_t width = s.split.tp * s.split.cp;
  const std::int64_t stage_gpus = s.gpus / s.split.pp;
  std::vector<std::vector<std::vector<std::size_t>>> result(static_cast<std::size_t>(dp));
  for (std::int64_t r = 0; r < dp; ++r) {
    for (std::int64_t stage = 0; stage < s.split.pp; ++stage) {
      const std::int64_t first = stage * stage_gpus + r * width;
      result[static_cast<std::size_t>(r)].push_back(groups_of_ranks(s, first, first + width));
    }
  }
  return result;
}

DpShares dp_speed_shares(const Scenario& s) {
  if (s.pool.groups.empty() || s.pool.balance != PoolBalance::kSpeed || !s.pool.replica_groups.empty()) return {};
  const auto replicas = dp_replica_groups(s);
  if (std::all_of(replicas.begin(), replicas.end(), [&](const auto& r) { return r == replicas.front(); })) return {};
  DpShares out;
  out.per_replica = dp_speed_share_counts(s, group_layer_seconds(s));
  if (out.per_replica.empty()) return out;
  const std::int64_t dp = s.split.data_parallel(s.gpus);
  std::vector<std::pair<std::vector<std::vector<std::size_t>>, std::int64_t>> seen;
  for (std::size_t r = 0; r < replicas.size(); ++r) {
    std::pair key{replicas[r], out.per_replica[r]};
    if (std::find(seen.begin(), seen.end(), key) != seen.end()) continue;
    Scenario alike = s;
    alike.pool.replica_groups = replicas[r];
    alike.split.global_batch = out.per_replica[r] * s.split.micro_batch * dp;
    out.classes.push_back(std::move(alike));
    seen.push_back(std::move(key));
  }
  return out;
}

std::vector<std::int64_t> dp_speed_share_counts(const Scenario& s, const std::vector<double>& layer_s) {
  if (s.pool.groups.empty() || s.pool.balance != PoolBalance::kSpeed || !s.pool.replica_groups.empty()) return {};
  const auto replicas = dp_replica_groups(s);
  std::vector<double> weight;
  for (const auto& stages : replicas) {
    double per_micro_batch = 0;  // the replica's slowest stage
    for (std::size_t stage = 0; stage < stages.size(); ++stage) {
      double layer = 0;
      for (const std::size_t g : stages[stage]) layer = std::max(layer, layer_s[g]);
      std::int64_t layers = 0;
      for (std::int64_t c = 0; c < s.split.vpp; ++c) {
        layers += s.split.chunk_layers(s.model.layers, static_cast<std::int64_t>(stage), c);
      }
      per_micro_batch = std::max(per_micro_batch, static_cast<double>(layers) * layer);
    }
    weight.push_back(1 / per_micro_batch);
  }
  if (std::all_of(weight.begin(), weight.end(), [&](double w) { return w == weight.front(); })) return {};
  const std::int64_t dp = s.split.data_parallel(s.gpus);
  const std::int64_t unit = s.split.schedule == workload::PipelineSchedule::kInterleaved ? s.split.pp : 1;
  const std::int64_t total = s.split.micro_batches(s.gpus) * dp;
  std::vector<std::int64_t> shares = proportional_shares(weight, total / unit);  // total / unit >= dp: never empty
  for (std::int64_t& share : shares) share *= unit;
  if (std::all_of(shares.begin(), shares.end(), [&](std::int64_t m) { return m == shares.front(); })) return {};
  return shares;
}

SimulatedStep simulate_dp_shares(const Scenario& s, const StepOptions& options, const DpShares& shares) {
  SimulatedStep slowest;
  bool first = true;
  for (const Scenario& alike : shares.classes) {
    SimulatedStep step = simulate_step(alike, options);
    if (first || step.report.step_time_s > slowest.report.step_time_s) slowest = std::move(step);
    first = false;
  }
  const auto& pipeline = slowest.report.data_pipeline;
  slowest.report = make_step_report(s, slowest.replay, pipeline ? pipeline->fabric_read_s : std::nullopt);
  slowest.report.dp_shares = shares.per_replica;
  return slowest;
}

}  // namespace ctwin::replay
