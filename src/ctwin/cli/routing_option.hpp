#pragma once
// --routing ecmp|adaptive on the commands that simulate traffic (collective, run, accept): the
// topology's fabric.routing for this run, checked here so that a bad value names the flag
// rather than the topology file.

#include <string>

#include <CLI/CLI.hpp>

#include "ctwin/core/error.hpp"

namespace ctwin::cli {

inline void add_routing_option(CLI::App& command, std::string& routing) {
  command.add_option("--routing", routing,
                     "ecmp (hash each flow onto one equal-cost path) or adaptive (spread it over all of them); "
                     "default: the topology's fabric.routing");
}

/// The `--set` assignment --routing stands for under `prefix` ("fabric." for a topology,
/// "cluster.fabric." for a scenario); empty when the flag was not given.
[[nodiscard]] inline std::string routing_assignment(const std::string& routing, const std::string& prefix) {
  if (routing.empty()) return {};
  if (routing != "ecmp" && routing != "adaptive") {
    throw InputError("--routing", "", "expected ecmp or adaptive, got '" + routing + "'");
  }
  return prefix + "routing=" + routing;
}

}  // namespace ctwin::cli
