#pragma once
// An approximate shared-fabric replay: the traffic of a few DP replicas of each pipeline stage
// stands for the stage's others (docs/plan.md, "An approximate flow phase: a sample of the
// replicas").
//
// A stage is stage_gpus consecutive GPUs, its DP replicas tp·cp GPUs each, one after the other,
// so a stage wider than a scalable unit fills whole units, each holding the same number of
// replicas. On a rail-optimised fabric every unit then carries the same traffic inside it: a
// sampled GPU's NIC and leaf downlink see exactly what the full replay puts on them, as long as
// every group that touches them is on the fabric. So groups that fit inside the sample (TP, CP,
// a pipeline send between equal local ranks) are put on the fabric for the sample's GPUs only,
// and groups wider than it (DP, EP across units) keep every member's traffic. What the sample
// drops is the other units' load on the leaves' uplinks and the spines: their ECMP collisions
// with the sample's flows are missing. Two sizes: one scalable unit (its leaves' uplinks carry
// what they carry in the full replay, only the spines miss the other units' flows) and one
// replica rounded up to whole nodes (the NICs and leaf downlinks of the sample exact, the leaf
// uplinks and spines carry a small share of their load).

#include <cstdint>
#include <string>

#include "ctwin/fabric/cluster_spec.hpp"

namespace ctwin::replay {

enum class FlowSample {
  kFull,          ///< every replica's traffic on the fabric (exact; the default)
  kScalableUnit,  ///< one scalable unit of each stage stands for the stage's others
  kReplica,       ///< one DP replica (tp·cp GPUs) of each stage, rounded up to whole nodes
};

/// "full", "su" or "replica"; InputError naming `origin` otherwise.
[[nodiscard]] FlowSample parse_flow_sample(const std::string& text, const std::string& origin);
[[nodiscard]] std::string flow_sample_name(FlowSample sample);

/// Stage-local ranks 0..n−1 whose groups of a stage are put on the fabric: stage_gpus when
/// `sample` is kFull, for kReplica on top of rack, or when a stage is not a whole number (above
/// one) of samples; else one scalable unit's GPUs (kScalableUnit; on top of rack the least
/// common multiple of a leaf's GPUs and `replica_gpus`) or the least common multiple of
/// `replica_gpus` (tp·cp) and a node's GPUs (kReplica).
[[nodiscard]] std::int64_t sampled_stage_gpus(FlowSample sample, const fabric::ClusterSpec& cluster,
                                              std::int64_t stage_gpus, std::int64_t replica_gpus);

}  // namespace ctwin::replay
