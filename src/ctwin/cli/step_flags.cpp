#include "ctwin/cli/step_flags.hpp"

#include "ctwin/cli/output.hpp"
#include "ctwin/cli/placement_option.hpp"
#include "ctwin/cli/routing_option.hpp"

namespace ctwin::cli {

std::vector<std::string> with_step_flags(std::vector<std::string> overrides, const StepFlags& flags) {
  if (!flags.placement.empty()) overrides.push_back(placement_assignment(flags.placement));
  if (std::string routing = routing_assignment(flags.routing, "cluster.fabric."); !routing.empty()) {
    overrides.push_back(std::move(routing));
  }
  if (!flags.network.empty()) {
    (void)step_network(flags.network);
    overrides.push_back("network=" + flags.network);
  }
  return overrides;
}

}  // namespace ctwin::cli
