#pragma once
// `ctwin cluster --format json` and Python's ClusterResult.to_dict(): one writer, the same bytes.

#include <nlohmann/json.hpp>

#include "ctwin/studies/cluster_jobs.hpp"

namespace ctwin::api {

/// {"cluster", "build_nodes", "build_gpus", "busy_nodes", "steps", "window_end_s", "events", "jobs": [...]};
/// per job its placement, its step alone and shared (mean and per step), slowdown, fabric bytes
/// and most contended links (docs/cluster.md).
[[nodiscard]] nlohmann::json cluster_json(const ClusterStudy& study);

}  // namespace ctwin::api
