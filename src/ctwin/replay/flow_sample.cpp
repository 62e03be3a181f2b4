#include "ctwin/replay/flow_sample.hpp"

#include <algorithm>
#include <numeric>

#include "ctwin/core/error.hpp"
#include "ctwin/fabric/topology.hpp"

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
  if (sample == FlowSample::kFull) return stage_gpus;
  const std::int64_t node_gpus = cluster.server.gpus;
  const std::int64_t replica = std::max<std::int64_t>(replica_gpus, 1);
  std::int64_t unit = 0;
  const auto topology = fabric::plan_topology(cluster, 1);
  if (topology->rail_aligned()) {
    // Whole nodes, so that a sampled node's NICs carry every flow the full replay puts on them.
    unit = sample == FlowSample::kScalableUnit ? std::int64_t{topology->nodes_per_unit()} * node_gpus
                                               : std::lcm(replica, node_gpus);
  } else if (sample == FlowSample::kScalableUnit) {
    // Top of rack: a leaf and its nodes are the fabric's unit. Whole leaves and whole replicas,
    // so that a sampled leaf's uplinks carry every flow of the nodes under it, as a scalable
    // unit's leaves do on a rail-optimised fabric. A replica sample would share its leaf with
    // nodes left out, so it is not offered here.
    // A dragonfly group alike: under minimal routes its links carry its own nodes' flows only.
    unit = std::lcm(std::int64_t{topology->nodes_per_unit()} * node_gpus, replica);
  } else {
    return stage_gpus;
  }
  // A stage that is not whole units would place its sample's replicas differently from the
  // others (a unit boundary inside a replica): nothing stands for them then.
  if (unit <= 0 || stage_gpus <= unit || stage_gpus % unit != 0) return stage_gpus;
  return unit;
}

}  // namespace ctwin::replay
