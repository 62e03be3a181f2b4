#include "ctwin/cli/placement_option.hpp"

namespace ctwin::cli {

void add_placement_option(CLI::App& command, std::string& placement) {
  command.add_option("--placement", placement,
                     "where the job sits: domain_aligned, contiguous, packed, spread, topology_aware or fragmented, "
                     "or the scenario's JSON object, e.g. '{\"policy\": \"fragmented\", \"build_nodes\": 64, "
                     "\"fragmentation\": 0.4, \"seed\": 7}' or '{\"nodes\": [0, 9, 17, 30]}' (docs/cluster.md)");
}

std::string placement_assignment(const std::string& placement) {
  // A bare name becomes a JSON string; anything else is passed as the JSON the scenario reads,
  // whose errors then name /placement.
  const bool json = !placement.empty() && (placement.front() == '{' || placement.front() == '"');
  return "placement=" + (json ? placement : "\"" + placement + "\"");
}

}  // namespace ctwin::cli
