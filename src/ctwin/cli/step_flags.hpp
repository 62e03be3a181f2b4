#pragma once
// The flags of the commands that run a scenario (run, scale, sweep, goodput) that stand for a
// --set assignment. They are appended after the user's own --set assignments, so that a flag
// wins over the same field set by hand, and each command gets them in the same order.

#include <string>
#include <vector>

namespace ctwin::cli {

struct StepFlags {
  std::string placement;  ///< --placement: a policy name or a JSON object (docs/cluster.md)
  std::string routing;    ///< --routing: ecmp or adaptive, the scenario's cluster.fabric.routing
  std::string network;    ///< --network: analytical or flow
};

/// `overrides` followed by the assignments of the flags that were given (empty ones add nothing);
/// a bad --routing or --network is an InputError naming the flag.
[[nodiscard]] std::vector<std::string> with_step_flags(std::vector<std::string> overrides, const StepFlags& flags);

}  // namespace ctwin::cli
