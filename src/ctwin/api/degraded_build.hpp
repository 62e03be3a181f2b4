#pragma once
// A build with degraded parts (fabric/degradation.hpp: a NIC, a cable or a leaf's uplinks at a
// share of their rate), for `ctwin collective --degrade` and `ctwin accept`. A degraded fabric is
// built apart from the context's cache, which holds healthy builds only.

#include <memory>
#include <string>
#include <vector>

#include "ctwin/api/evaluate.hpp"

namespace ctwin::api {

/// The healthy build, from the context's cache.
[[nodiscard]] std::shared_ptr<const fabric::Fabric> build_fabric(const Build& build, EvalContext& context);

/// The build with `degrade` terms applied ("nic:12=0.25"); InputError naming `origin` for a bad term.
[[nodiscard]] fabric::Fabric degraded_fabric(const Build& build, const std::vector<std::string>& degrade,
                                             const std::string& origin);

/// evaluate_collective on the build with `degrade` applied (the healthy, cached build when empty).
[[nodiscard]] collectives::CollectiveResult evaluate_degraded_collective(const Build& build,
                                                                         const std::vector<std::string>& degrade,
                                                                         const std::string& origin,
                                                                         collectives::CollectiveQuery query,
                                                                         EvalContext& context);

}  // namespace ctwin::api
