#pragma once
// Tests build fabrics from the bundled topologies by name: topologies/<name>.json.

#include <filesystem>
#include <string>
#include <vector>

#include "ctwin/fabric/cluster_spec.hpp"
#include "ctwin/fabric/fabric.hpp"

namespace ctwin::testing {

inline fabric::Fabric bundled_fabric(const std::string& topology, int gpus,
                                     const std::vector<std::string>& overrides = {}) {
  const auto path = std::filesystem::path(CTWIN_SOURCE_DIR) / "topologies" / (topology + ".json");
  return fabric::Fabric(fabric::load_cluster(path, overrides), gpus);
}

}  // namespace ctwin::testing
