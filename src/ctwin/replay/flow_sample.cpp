#include "ctwin/replay/flow_sample.hpp"

#include <algorithm>
#include <numeric>

#include "ctwin/core/error.hpp"

namespace ctwin::replay {

FlowSample parse_flow_sample(const std::string& text, const std::string& origin) {
  if (text == "full") return FlowSample::kFull;
  if (text == "su") return FlowSample::kScalableUnit;
  if (text == "replica") return FlowSample::kReplica;
  throw InputError(origin, "", "unknown flow sample '" + text + "' (expected full, su or replica)");
}

std::string flow_sample_name(FlowSample sample) {
  switch (sample) {
    case FlowSample::kScalableUnit: return "su";
    case FlowSample::kReplica: return "replica";
    case FlowSample::kFull: break;
  }
  return "full";
}

std::int64_t sampled_stage_gpus(FlowSample sample, const fabric::ClusterSpec& cluster, std::int64_t stage_gpus,
                                std::int64_t replica_gpus) {
  if (sample == FlowSample::kFull || cluster.fabric.kind != fabric::FabricKind::kRailOptimized) return stage_gpus;
  // Whole nodes, so that a sampled node's NICs carry every flow the full replay puts on them.
  const std::int64_t unit = sample == FlowSample::kScalableUnit
                                ? std::int64_t{cluster.fabric.nodes_per_su} * cluster.server.gpus
                                : std::lcm(std::max<std::int64_t>(replica_gpus, 1), std::int64_t{cluster.server.gpus});
  // A stage that is not whole units would place its sample's replicas differently from the
  // others (a unit boundary inside a replica): nothing stands for them then.
  if (unit <= 0 || stage_gpus <= unit || stage_gpus % unit != 0) return stage_gpus;
  return unit;
}

}  // namespace ctwin::replay
