#include "ctwin/plan/plan_pool.hpp"

#include <algorithm>
#include <compare>
#include <cstdio>
#include <map>
#include <numeric>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ctwin/core/error.hpp"
#include "ctwin/replay/dp_shares.hpp"
#include "ctwin/replay/layer_ops_cache.hpp"
#include "ctwin/replay/node_pool.hpp"
#include "ctwin/workload/memory_model.hpp"

namespace ctwin::api {
namespace {

// The first stage and group that do not fit, as a message; empty when every stage fits.
std::string pool_memory_verdict(const replay::Scenario& s, double margin) {
  workload::MemoryOptions options;  // as replay::make_step_report sets them
  options.flash_attention = s.split.flash_attention;
  options.fp32_gradients = s.split.grad_reduce_in_fp32;
  const auto memory = workload::memory_per_stage(s.model, s.split, s.gpus, options);
  const auto groups = replay::stage_groups(s);
  constexpr double kGib = 1024.0 * 1024.0 * 1024.0;
  for (std::size_t stage = 0; stage < memory.size() && stage < groups.size(); ++stage) {
    const double total = static_cast<double>(memory[stage].total().count());
    for (const std::size_t g : groups[stage]) {
      const replay::PoolGroup& group = s.pool.groups[g];
      const double capacity = static_cast<double>(group.gpu.hbm_capacity.count());
      // The same test as the memory rule (plan_rules.cpp), on the group's GPU.
      if (margin <= 0 ? workload::fits_memory(memory[stage], group.gpu) : total <= (1 - margin) * capacity) continue;
      char text[240];
      std::snprintf(text, sizeof text,
                    "stage %zu needs %.1f GiB of the %.1f GiB left by a %.0f %% margin on group '%s' (%s, %.1f GiB)",
                    stage, total / kGib, (1 - margin) * capacity / kGib, 100 * margin, group.name.c_str(),
                    group.gpu.name.c_str(), capacity / kGib);
      return text;
    }
  }
  return {};
}

void number_again(std::vector<PlanCandidate>& candidates) {
  for (std::size_t i = 0; i < candidates.size(); ++i) candidates[i].index = static_cast<std::int64_t>(i);
}

// What makes two assignments of one split the same step: each stage's GPU kinds, the layers per
// virtual stage (the even split's when no layout is set) and, under DP shares by speed, the
// replicas' kinds per stage with their micro-batches, in any replica order.
using PoolKinds = std::vector<std::vector<std::string>>;
struct PoolStepKey {
  PoolKinds stages;
  std::vector<std::int64_t> layers;
  std::vector<std::pair<PoolKinds, std::int64_t>> replicas;
  auto operator<=>(const PoolStepKey&) const = default;
};

PoolKinds pool_kinds(const replay::Scenario& s, const std::vector<std::vector<std::size_t>>& groups) {
  PoolKinds out;
  for (const auto& stage : groups) {
    std::vector<std::string> kinds;
    for (const std::size_t g : stage) kinds.push_back(s.pool.groups[g].gpu.name);
    std::sort(kinds.begin(), kinds.end());
    kinds.erase(std::unique(kinds.begin(), kinds.end()), kinds.end());
    out.push_back(std::move(kinds));
  }
  return out;
}

PoolStepKey pool_step_key(const replay::Scenario& s, const std::vector<std::int64_t>& dp_shares) {
  PoolStepKey key;
  key.stages = pool_kinds(s, replay::stage_groups(s));
  key.layers = s.split.pipeline_layout;
  const std::int64_t chunks = s.split.pp * s.split.vpp;
  if (key.layers.empty() && !s.split.embedding_in_split && !s.split.loss_in_split && chunks > 0) {
    key.layers.assign(static_cast<std::size_t>(chunks), s.model.layers / chunks);
  }
  if (!dp_shares.empty()) {
    const auto replicas = replay::dp_replica_groups(s);
    for (std::size_t r = 0; r < replicas.size(); ++r) key.replicas.emplace_back(pool_kinds(s, replicas[r]), dp_shares[r]);
    std::sort(key.replicas.begin(), key.replicas.end());
  }
  return key;
}

}  // namespace

const compute::GpuSpec& plan_memory_gpu(const replay::Scenario& base) {
  const compute::GpuSpec* largest = &base.gpu;
  for (const replay::PoolGroup& g : base.pool.groups) {
    if (largest == &base.gpu || g.gpu.hbm_capacity > largest->hbm_capacity) largest = &g.gpu;
  }
  return *largest;
}

void drop_pool_unfit(PlanSpace& space, const replay::Scenario& base, double margin) {
  if (base.pool.groups.empty()) return;
  std::vector<PlanCandidate> kept;
  kept.reserve(space.survivors.size());
  for (PlanCandidate& c : space.survivors) {
    replay::Scenario s = base;
    s.split = c.split;
    const std::string verdict = pool_memory_verdict(s, margin);
    if (verdict.empty()) kept.push_back(std::move(c));
    else space.rules.add("pool.memory", 1, verdict);
  }
  number_again(kept);
  space.survivors = std::move(kept);
}

std::vector<replay::Scenario> pool_assignments(const replay::Scenario& base) {
  std::set<std::string> kinds;
  for (const replay::PoolGroup& g : base.pool.groups) kinds.insert(g.gpu.name);
  if (kinds.size() < 2) return {};
  std::vector<std::size_t> order(base.pool.groups.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::vector<replay::Scenario> out;
  do {
    for (const replay::PoolBalance balance : {replay::PoolBalance::kEven, replay::PoolBalance::kSpeed}) {
      replay::Scenario s = base;
      s.pool.groups.clear();
      for (const std::size_t g : order) s.pool.groups.push_back(base.pool.groups[g]);
      s.pool.balance = balance;
      out.push_back(std::move(s));
    }
  } while (std::next_permutation(order.begin(), order.end()));
  return out;
}

void expand_pool_assignments(PlanSpace& space, const std::vector<replay::Scenario>& assigned, double margin) {
  if (assigned.empty()) return;
  const auto count = static_cast<std::int64_t>(assigned.size());
  space.enumerated *= count;
  for (RuleCount& r : space.rules.rules()) r.removed *= count;
  // A group's layer time depends on the split only through the layer's own fields.
  std::map<std::pair<replay::LayerOpsKey, std::size_t>, std::vector<double>> layer_seconds;
  std::vector<PlanCandidate> kept;
  for (const PlanCandidate& c : space.survivors) {
    std::set<PoolStepKey> seen;
    for (std::size_t a = 0; a < assigned.size(); ++a) {
      replay::Scenario s = assigned[a];
      s.split = c.split;
      std::vector<std::int64_t> dp_shares;  // speed's, where the replicas differ in speed
      if (s.pool.balance == replay::PoolBalance::kSpeed) {
        if (s.split.embedding_in_split || s.split.loss_in_split) {
          space.rules.add("pool.balance", 1,
                          "\"speed\" sets the layers per stage itself: not with the embedding and loss slots of the "
                          "pipeline split");
          continue;
        }
        const std::pair key{replay::LayerOpsKey::of(s.split, 0, false), a};
        auto it = layer_seconds.find(key);
        if (it == layer_seconds.end()) it = layer_seconds.emplace(key, replay::group_layer_seconds(s)).first;
        try {
          s.split.pipeline_layout = replay::speed_layout(s, it->second);
        } catch (const InputError& e) {
          space.rules.add("pool.balance", 1, e.what());
          continue;
        }
        dp_shares = replay::dp_speed_share_counts(s, it->second);
      }
      if (std::string verdict = pool_memory_verdict(s, margin); !verdict.empty()) {
        space.rules.add("pool.memory", 1, verdict);
        continue;
      }
      if (!seen.insert(pool_step_key(s, dp_shares)).second) {
        space.rules.add("pool.duplicate", 1,
                        "the same GPU kinds and layers per stage as an earlier assignment of the same split");
        continue;
      }
      kept.push_back({0, s.split, a});
    }
  }
  number_again(kept);
  space.survivors = std::move(kept);
}

PlanPoolChoice pool_choice_of(const replay::Scenario& assigned, const workload::ParallelConfig& split) {
  PlanPoolChoice choice;
  for (const replay::PoolGroup& g : assigned.pool.groups) choice.order.push_back(g.name);
  choice.balance = assigned.pool.balance == replay::PoolBalance::kSpeed ? "speed" : "even";
  choice.layers = split.pipeline_layout;
  return choice;
}

}  // namespace ctwin::api
