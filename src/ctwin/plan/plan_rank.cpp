#include "ctwin/plan/plan_rank.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "ctwin/api/error_band.hpp"
#include "ctwin/plan/plan_bound.hpp"
#include "ctwin/plan/plan_placement.hpp"
#include "ctwin/plan/plan_pool.hpp"
#include "ctwin/plan/plan_progress.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/core/parallel_for.hpp"

namespace ctwin::api {
namespace {

constexpr const char* kOrigin = "--rank-of";

// The key's names are those of a plan result's "split"; each narrows the axis its --fix would.
const std::map<std::string, std::string>& key_paths() {
  static const std::map<std::string, std::string> paths = {
      {"tp", "parallel.tp"},
      {"pp", "parallel.pp"},
      {"vpp", "parallel.vpp"},
      {"cp", "parallel.cp"},
      {"ep", "parallel.ep"},
      {"schedule", "parallel.schedule"},
      {"pipeline_accounting", "parallel.account_for_embedding_in_pipeline_split"},
      {"micro_batch", "training.micro_batch"},
      {"recompute", "parallel.recompute"},
      {"zero", "parallel.zero"},
      {"distributed_optimizer", "parallel.distributed_optimizer"},
  };
  return paths;
}

template <typename T>
bool contains(const std::vector<T>& values, const T& value) {
  return std::find(values.begin(), values.end(), value) != values.end();
}

template <typename T>
bool within(const std::vector<T>& narrow, const std::vector<T>& wide) {
  return std::all_of(narrow.begin(), narrow.end(), [&wide](const T& v) { return contains(wide, v); });
}

bool same_optimizer(const OptimizerChoice& a, const OptimizerChoice& b) {
  return a.zero == b.zero && a.distributed_optimizer == b.distributed_optimizer;
}

// Whether every value `narrow` allows is one `wide` allows (vpp only counts with interleaving).
bool axes_within(const PlanAxes& narrow, const PlanAxes& wide) {
  const bool interleaved = contains(narrow.schedule, workload::PipelineSchedule::kInterleaved);
  return within(narrow.tp, wide.tp) && within(narrow.pp, wide.pp) && within(narrow.cp, wide.cp) &&
         within(narrow.ep, wide.ep) && within(narrow.pipeline_accounting, wide.pipeline_accounting) &&
         within(narrow.schedule, wide.schedule) && (!interleaved || within(narrow.vpp, wide.vpp)) &&
         within(narrow.micro_batch, wide.micro_batch) && within(narrow.recompute, wide.recompute) &&
         std::all_of(narrow.optimizer.begin(), narrow.optimizer.end(), [&wide](const OptimizerChoice& o) {
           return std::any_of(wide.optimizer.begin(), wide.optimizer.end(),
                              [&o](const OptimizerChoice& w) { return same_optimizer(o, w); });
         });
}

// The plan's axes narrowed by the key; a name that is no key or a value outside the plan's
// space is an InputError naming --rank-of and the name.
PlanAxes narrowed(const PlanAxes& plan, const std::vector<std::string>& key) {
  if (key.empty()) throw InputError(kOrigin, "", "names no field (expected tp=4,pp=8,...)");
  PlanAxes axes = plan;
  std::set<std::string> seen;
  for (const auto& text : key) {
    Override item = parse_override(text, kOrigin);
    const auto path = key_paths().find(item.path);
    if (path == key_paths().end()) {
      std::string names;
      for (const auto& [name, unused] : key_paths()) names += (names.empty() ? "" : ", ") + name;
      throw InputError(kOrigin, item.path, "is not a field of a split (expected one of " + names + ")");
    }
    if (!seen.insert(item.path).second) throw InputError(kOrigin, item.path, "is given twice");
    const std::string value = item.value.is_string() ? item.value.get<std::string>() : item.value.dump();
    item.path = path->second;
    try {
      (void)apply_fix(axes, item);
    } catch (const InputError& e) {
      throw InputError(kOrigin, path->first, e.message());
    }
    if (!axes_within(axes, plan)) {
      throw InputError(kOrigin, path->first,
                       value + " is not a value the plan searches for this model, GPU count and --fix");
    }
  }
  return axes;
}

bool in_axes(const workload::ParallelConfig& s, const PlanAxes& axes) {
  const bool interleaved = s.schedule == workload::PipelineSchedule::kInterleaved;
  return contains(axes.tp, s.tp) && contains(axes.pp, s.pp) && contains(axes.cp, s.cp) && contains(axes.ep, s.ep) &&
         contains(axes.pipeline_accounting, s.embedding_in_split) && contains(axes.schedule, s.schedule) &&
         (!interleaved || contains(axes.vpp, s.vpp)) && contains(axes.micro_batch, s.micro_batch) &&
         contains(axes.recompute, s.recompute) &&
         std::any_of(axes.optimizer.begin(), axes.optimizer.end(), [&s](const OptimizerChoice& o) {
           return o.zero == s.zero && o.distributed_optimizer == s.distributed_optimizer;
         });
}

// The names whose values differ among `matches`: what the key must add to name one.
std::string differing(const std::vector<const PlanCandidate*>& matches) {
  std::map<std::string, std::set<std::string>> values;
  for (const auto* c : matches) {
    const auto& s = c->split;
    values["tp"].insert(std::to_string(s.tp));
    values["pp"].insert(std::to_string(s.pp));
    values["vpp"].insert(std::to_string(s.vpp));
    values["cp"].insert(std::to_string(s.cp));
    values["ep"].insert(std::to_string(s.ep));
    values["schedule"].insert(workload::schedule_name(s.schedule));
    values["pipeline_accounting"].insert(s.embedding_in_split ? "true" : "false");
    values["micro_batch"].insert(std::to_string(s.micro_batch));
    values["recompute"].insert(workload::recompute_name(s.recompute));
    values["zero"].insert(std::to_string(s.zero));
    values["distributed_optimizer"].insert(s.distributed_optimizer ? "true" : "false");
  }
  std::string out;
  for (const auto& [name, set] : values) {
    if (set.size() > 1) out += (out.empty() ? "" : ", ") + name;
  }
  return out;
}

double objective_of(const PlanEntry& e, PlanObjective objective) {
  return objective == PlanObjective::kMfu ? e.analytical.mfu : e.analytical.tokens_per_s;
}


}  // namespace

SplitRank rank_split(const Scenario& given, EvalContext& context, const RankOptions& options) {
  const Scenario scenario = with_plan_placement(given, options.placement);
  PlanOptions plan_options;
  plan_options.gpus = options.gpus;
  plan_options.fixes = options.fixes;
  plan_options.placement = options.placement;
  plan_options.objective = options.objective;
  plan_options.memory_margin = options.memory_margin;
  const PlanSetup setup = prepare_plan(scenario, context, plan_options);
  if (!setup.assigned.empty()) {
    throw InputError(kOrigin, "", "does not rank on a pool of several GPU kinds: a split runs there in several "
                                  "assignments of the groups, which `ctwin plan` searches");
  }
  const PlanAxes key_axes = narrowed(setup.axes, options.key);
  const SpaceInputs inputs{setup.resolved.model, setup.resolved.cluster, plan_memory_gpu(setup.resolved), setup.gpus,
                           setup.resolved.split, setup.memory_margin};
  // Nothing left to rank against ends as evaluate_plan does.
  PlannedSpace planned = plan_space_of(setup, scenario, plan_options);
  const PlanSpace& space = planned.space;

  SplitRank rank;
  static_cast<PlanHeader&>(rank) = std::move(planned.header);
  rank.key = options.key;
  std::vector<const PlanCandidate*> matches;
  for (const auto& c : space.survivors) {
    if (in_axes(c.split, key_axes)) matches.push_back(&c);
  }
  if (matches.size() > 1) {
    throw InputError(kOrigin, "", "names " + std::to_string(matches.size()) +
                                      " candidates; give one value for each of " + differing(matches));
  }
  if (matches.empty()) {
    // The plan's rules on the key's splits alone say which one removed them.
    PlanSpace named_space = enumerate_plan_space(inputs, key_axes);
    // The plan's late rules (a pool's groups, the placement) as plan_space_of applies them.
    drop_pool_unfit(named_space, setup.resolved, setup.memory_margin);
    drop_unplaceable(named_space, setup.resolved);
    if (!named_space.survivors.empty()) {
      // A split that passes every rule on its own was removed by comparison with its neighbours:
      // an MoE rule (plan_space.hpp), which the key's narrowed axes turn off.
      const workload::ParallelConfig& s = named_space.survivors.front().split;
      const std::int64_t domain = nvlink_domain(setup.resolved.cluster);
      if (!setup.resolved.model.has_moe || (s.ep * s.expert_tp * s.tp <= domain && s.zero < 2)) {
        throw InputError(kOrigin, "pipeline_accounting",
                         "true names a split the plan does not search (embedding accounting needs pp > 1)");
      }
      const bool crosses = s.ep * s.expert_tp * s.tp > domain;
      rank.not_valid_rule = crosses ? "moe.ep_domain" : "moe.zero";
      rank.not_valid = crosses ? "ep " + std::to_string(s.ep) + " x tp " + std::to_string(s.tp) +
                                     " spans more than one NVLink domain, and an ep within it fits the same split"
                               : "ZeRO-" + std::to_string(s.zero) + " where the distributed optimizer fits the same split";
    } else {
      const RuleCount* last = named_space.rules.last_removing();
      if (last == nullptr) throw InputError(kOrigin, "", "names no split of the plan's space");
      rank.not_valid_rule = last->rule;
      rank.not_valid = last->example;
    }
  }

  const PlanProgress report(options.progress);

  const PlanCandidate* named = matches.empty() ? nullptr : matches.front();
  std::vector<PlanEntry> entries;  // every replayed candidate
  if (named != nullptr) {
    entries.push_back(evaluate_plan_candidate(setup, *named, network::ModelKind::kAnalytical, context));
    report("analytical", 1);
    if (!entries.back().invalid.empty()) {
      rank.not_valid_rule = "replay";
      rank.not_valid = entries.back().invalid;
    }
  }
  const bool named_valid = rank.not_valid_rule.empty();
  const double threshold = named_valid ? objective_of(entries.front(), options.objective) : 0;

  std::vector<const PlanCandidate*> others;
  for (const auto& c : space.survivors) {
    if (&c != named) others.push_back(&c);
  }
  std::vector<ObjectiveBound> bounds(others.size());
  parallel_for(others.size(), options.jobs, [&](std::size_t i) {
    bounds[i] = bound_objective(setup.resolved, others[i]->split, options.objective, context);
    report("bound", others.size());
  });
  rank.bounded = static_cast<std::int64_t>(others.size());
  std::int64_t refused = named_valid || named == nullptr ? 0 : 1;
  for (const auto& b : bounds) refused += b.invalid.empty() ? 0 : 1;

  const auto replay_all = [&](const std::vector<std::size_t>& which) {
    std::vector<PlanEntry> batch(which.size());
    parallel_for(batch.size(), options.jobs, [&](std::size_t b) {
      batch[b] = evaluate_plan_candidate(setup, *others[which[b]], network::ModelKind::kAnalytical, context);
      report("analytical", which.size());
    });
    for (auto& e : batch) {
      if (!e.invalid.empty()) ++refused;
      entries.push_back(std::move(e));
    }
  };
  if (named_valid) {
    // Everything whose bound can rank at or ahead of the named split, in the plan's tie order.
    std::vector<std::size_t> which;
    for (std::size_t i = 0; i < others.size(); ++i) {
      const ObjectiveBound& b = bounds[i];
      if (!b.invalid.empty()) continue;
      if (b.replay || b.best > threshold || (b.best == threshold && others[i]->index < named->index)) {
        which.push_back(i);
      }
    }
    replay_all(which);
  } else {
    // The best alone, as the plan's bounded phase finds its first.
    std::vector<std::size_t> order;
    for (std::size_t i = 0; i < others.size(); ++i) {
      if (bounds[i].invalid.empty()) order.push_back(i);
    }
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      if (bounds[a].replay != bounds[b].replay) return bounds[a].replay;
      return bounds[a].best > bounds[b].best;
    });
    std::optional<double> best;
    std::size_t next = 0;
    while (next < order.size()) {
      if (best && !bounds[order[next]].replay && bounds[order[next]].best < *best) break;
      const std::size_t end = std::min(order.size(), next + kBoundedReplayBatch);
      const std::size_t first_new = entries.size();
      replay_all(std::vector<std::size_t>(order.begin() + static_cast<std::ptrdiff_t>(next),
                                          order.begin() + static_cast<std::ptrdiff_t>(end)));
      for (std::size_t e = first_new; e < entries.size(); ++e) {
        if (!entries[e].invalid.empty()) continue;
        const double v = objective_of(entries[e], options.objective);
        if (!best || v > *best) best = v;
      }
      next = end;
    }
  }
  rank.replayed = static_cast<std::int64_t>(entries.size());
  rank.valid = rank.survivors - refused;

  // The plan's own ordering over the replayed candidates: every candidate ranking ahead of the
  // named split is among them, so its rank among them is its rank in the plan.
  PlanResult ranked;
  ranked.objective = options.objective;
  ranked.flow_top = 0;
  ranked.entries = std::move(entries);
  std::stable_sort(ranked.entries.begin(), ranked.entries.end(),
                   [](const PlanEntry& a, const PlanEntry& b) { return a.index < b.index; });
  finish_plan(ranked);
  if (!ranked.entries.empty() && ranked.entries.front().invalid.empty()) rank.best = ranked.entries.front();
  if (named != nullptr) {
    for (const auto& e : ranked.entries) {
      if (e.index == named->index) rank.named = e;
    }
    if (named_valid) rank.rank = rank.named->analytical_rank;
  }
  return rank;
}

nlohmann::json split_rank_json(const SplitRank& r) {
  nlohmann::json out = plan_header_json(r);
  out["key"] = r.key;
  out["valid"] = r.valid;
  out["rank"] = r.rank > 0 ? nlohmann::json(r.rank) : nlohmann::json(nullptr);
  out["not_valid"] = r.not_valid_rule.empty()
                         ? nlohmann::json(nullptr)
                         : nlohmann::json{{"rule", r.not_valid_rule}, {"message", r.not_valid}};
  // The bands and the distinguishable mark exactly as the plan's own rows carry them.
  const analysis::ErrorBands bands = load_bundled_error_bands();
  const PlanEntry* best = r.best && r.rank > 1 ? &*r.best : nullptr;
  out["error_band"] = plan_error_band_classes_json(r, bands);
  out["named"] = r.named ? plan_entry_banded_json(*r.named, static_cast<std::size_t>(r.rank), best, r, bands) : nlohmann::json(nullptr);
  out["best"] = r.best ? plan_entry_banded_json(*r.best, 1, nullptr, r, bands) : nlohmann::json(nullptr);
  out["search"] = {{"bounded", r.bounded}, {"replayed", r.replayed}};
  return out;
}

}  // namespace ctwin::api
