#pragma once
// A heterogeneous pool (docs/heterogeneous.md): the cluster file's node groups with their GPU
// profiles resolved, in the order the job's ranks fill them, and how the pipeline's layers are
// shared out. Kept apart from node_pool.hpp so that the scenario can hold one without the replay.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ctwin/compute/gpu_spec.hpp"
#include "ctwin/fabric/cluster_spec.hpp"

namespace ctwin::replay {

/// "even": the split's own layers per stage (Megatron's default); "speed": layers per virtual
/// stage in proportion to the speed of the GPUs that run it.
enum class PoolBalance { kEven, kSpeed };

struct PoolGroup {
  std::string name;
  std::int64_t nodes = 0;
  compute::GpuSpec gpu;
  std::optional<fabric::ServerSpec> server;  ///< the group's own server; none: the cluster file's
};

struct NodePool {
  std::vector<PoolGroup> groups;  ///< in the order the job's ranks fill them, from node 0 on
  PoolBalance balance = PoolBalance::kEven;
  /// Set only on the scenario of one class of DP replicas (dp_shares.hpp): per pipeline stage, the
  /// groups that replica's ranks sit in, which stage_groups() then gives instead of the stage's.
  std::vector<std::vector<std::size_t>> replica_groups;
};

/// Resolves a GPU name as the scenario's "gpu" field does; `pointer` names the field in errors.
using GpuResolver = std::function<compute::GpuSpec(const std::string& name, const std::string& pointer)>;

/// The pool of `cluster`'s node groups under the scenario's optional "pool" object
/// ({"balance": "even" | "speed", "order": [group names]}; `pool` null when absent). InputError
/// naming `source` for an unknown or repeated group in the order, or a pool on a cluster without
/// node groups.
[[nodiscard]] NodePool read_node_pool(const fabric::ClusterSpec& cluster, const nlohmann::json* pool,
                                      const std::string& source, const GpuResolver& resolve_gpu);

}  // namespace ctwin::replay
