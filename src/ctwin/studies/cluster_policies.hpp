#pragma once
// The scheduler what-if (docs/cluster.md, "The scheduler what-if"): one JOBS file's jobs placed by
// each node policy in turn on the same build and busy map, replayed together on its fabric
// (cluster_jobs.hpp). Per policy: the jobs that did not fit, each placed job's throughput, and
// the free GPUs' utilisation: the GPU-seconds the placed jobs would need at their best (each
// alone: packed on the empty build, or on any placement the policies gave it if that is faster)
// over the free GPU-seconds of the window.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ctwin/studies/cluster_jobs.hpp"

namespace ctwin::api {

struct ClusterPolicyOutcome {
  std::string policy;
  ClusterStudy study;           ///< every job the file places by policy placed by this one; node lists kept
  std::int64_t placed_gpus = 0;
  double allocated_share = 0;   ///< placed GPUs / free GPUs (the build less its busy nodes)
  /// Σ over placed jobs of GPUs × (best step / shared step), over the free GPUs: 1 when every free
  /// GPU runs a job as fast as that job can run at all.
  double utilisation = 0;
};

struct ClusterPolicyComparison {
  std::vector<std::string> jobs;     ///< in file order
  /// Each job's fastest step alone: packed on the empty build, or a policy's placement where that is
  /// faster (one node per idle leaf can beat packed on oversubscribed leaves), so that utilisation
  /// never exceeds the allocated share for a job that no neighbour slows.
  std::vector<double> best_step_s;
  std::int64_t free_gpus = 0;
  std::vector<ClusterPolicyOutcome> policies;  ///< packed, spread, topology_aware, fragmented
};

[[nodiscard]] ClusterPolicyComparison compare_cluster_policies(const ClusterQuery& query, EvalContext& context);

/// `ctwin cluster --compare-policies --format json`.
[[nodiscard]] nlohmann::json cluster_policies_json(const ClusterPolicyComparison& comparison);

}  // namespace ctwin::api
