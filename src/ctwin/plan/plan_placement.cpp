#include "ctwin/plan/plan_placement.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <utility>

#include "ctwin/core/error.hpp"
#include "ctwin/replay/node_pool.hpp"

namespace ctwin::api {

Scenario with_plan_placement(const Scenario& scenario, const nlohmann::json& placement) {
  if (placement.is_null()) return scenario;
  return scenario.with("placement", placement);
}

nlohmann::json plan_placement_json(const replay::PlacementSpec& spec) {
  using replay::PlacementPolicy;
  if (!spec.named) return nullptr;
  switch (spec.policy) {
    case PlacementPolicy::kDomainAligned:
    case PlacementPolicy::kContiguous: return replay::placement_name(spec.policy);
    case PlacementPolicy::kExplicit: return {{"gpus", spec.gpus}};
    case PlacementPolicy::kNodes: {
      nlohmann::json out = {{"nodes", spec.nodes}};
      if (spec.build_nodes > 0) out["build_nodes"] = spec.build_nodes;
      return out;
    }
    default: break;
  }
  nlohmann::json out = {{"policy", replay::placement_name(spec.policy)}, {"fragmentation", spec.fragmentation},
                        {"seed", spec.seed}};
  if (spec.build_nodes > 0) out["build_nodes"] = spec.build_nodes;
  return out;
}

void drop_unplaceable(PlanSpace& space, const replay::Scenario& base) {
  if (!base.placement.named || base.placement.policy == replay::PlacementPolicy::kDomainAligned) return;
  // Where ranks go depends on the split only through its NVLink block and its stage's ranks (the
  // GPU count is the plan's), so each pair is placed once.
  std::map<std::pair<std::int64_t, std::int64_t>, std::string> verdicts;
  std::vector<PlanCandidate> kept;
  kept.reserve(space.survivors.size());
  for (PlanCandidate& c : space.survivors) {
    const std::pair key{replay::nvlink_block(c.split), c.split.tp * c.split.cp * c.split.data_parallel(base.gpus)};
    auto it = verdicts.find(key);
    if (it == verdicts.end()) {
      replay::Scenario s = base;
      s.split = c.split;
      std::string verdict;
      try {
        // check_pool places the ranks too, and refuses a placement that moves them off a pool's order.
        if (s.pool.groups.empty()) (void)replay::place_ranks(s);
        else replay::check_pool(s);
      } catch (const InputError& e) {
        verdict = e.what();
      }
      it = verdicts.emplace(key, std::move(verdict)).first;
    }
    if (it->second.empty()) kept.push_back(std::move(c));
    else space.rules.add("placement", 1, it->second);
  }
  for (std::size_t i = 0; i < kept.size(); ++i) kept[i].index = static_cast<std::int64_t>(i);
  space.survivors = std::move(kept);
}

}  // namespace ctwin::api
