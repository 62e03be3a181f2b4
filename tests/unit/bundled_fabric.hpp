#pragma once
// Tests build fabrics from the bundled topologies by name: topologies/<name>.json, with the
// server's GPU architecture read from its bundled profile as api::attach_gpu_arch does for the
// front ends (collectives refuse a fabric whose GPU family is not known).

#include <filesystem>
#include <string>
#include <vector>

#include "ctwin/compute/gpu_spec.hpp"
#include "ctwin/fabric/cluster_spec.hpp"
#include "ctwin/fabric/fabric.hpp"

namespace ctwin::testing {

/// `spec` with server.gpu_arch from models/gpus/<server.gpu>.json.
inline fabric::ClusterSpec with_bundled_arch(fabric::ClusterSpec spec) {
  const auto profile = std::filesystem::path(CTWIN_SOURCE_DIR) / "models" / "gpus" / (spec.server.gpu + ".json");
  spec.server.gpu_arch = compute::read_gpu_arch(profile);
  return spec;
}

/// A topology file, by path, with its GPU's architecture.
inline fabric::ClusterSpec load_cluster_with_arch(const std::filesystem::path& path,
                                                   const std::vector<std::string>& overrides = {}) {
  return with_bundled_arch(fabric::load_cluster(path, overrides));
}

inline fabric::ClusterSpec bundled_cluster(const std::string& topology, const std::vector<std::string>& overrides = {}) {
  return load_cluster_with_arch(std::filesystem::path(CTWIN_SOURCE_DIR) / "topologies" / (topology + ".json"), overrides);
}

inline fabric::Fabric bundled_fabric(const std::string& topology, int gpus,
                                     const std::vector<std::string>& overrides = {}) {
  return fabric::Fabric(bundled_cluster(topology, overrides), gpus);
}

}  // namespace ctwin::testing
