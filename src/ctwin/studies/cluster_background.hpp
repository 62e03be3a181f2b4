#pragma once
// The JOBS file's "background" list (docs/input-formats.md, docs/cluster.md "Background
// traffic"): streams of other tenants or storage on the build, each on a named cable or between
// nodes through the fabric, at a constant rate or on a schedule of rates, turned into directed
// streams on the build's links.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ctwin/fabric/fabric.hpp"
#include "ctwin/replay/background_traffic.hpp"

namespace ctwin::api {

/// One directed stream as the report names it.
struct ClusterBackgroundStream {
  int entry = 0;      ///< index in the file's "background" list
  std::string label;  ///< "leaf0.up0 (leaf -> spine)", "n3 -> n12"
  replay::BackgroundStream stream;
};

/// Reads the list against the build. InputError naming `source` and the field
/// ("/background/0/link") for an unknown cable or node, a rate without a unit, a rate that is
/// not positive or above the slowest link of its path, a schedule out of order, not from 0 or
/// all 0, both a rate and a schedule, an unknown key.
[[nodiscard]] std::vector<ClusterBackgroundStream> read_cluster_background(const nlohmann::json& list,
                                                                          const std::string& source,
                                                                          const fabric::Fabric& build);

}  // namespace ctwin::api
