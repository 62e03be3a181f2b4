#include "ctwin/api/step_degradation.hpp"

#include <algorithm>
#include <utility>

#include "ctwin/core/error.hpp"
#include "ctwin/fabric/degradation.hpp"
#include "ctwin/replay/node_pool.hpp"
#include "ctwin/replay/step_limits.hpp"

namespace ctwin::api {
namespace {

bool starts_with(const std::string& text, const char* prefix) { return text.rfind(prefix, 0) == 0; }

}  // namespace

void apply_step_degradation(const replay::Scenario& scenario, const std::vector<std::string>& terms,
                            const std::string& origin, replay::StepOptions& options) {
  std::vector<std::string> parts;  // of the fabric
  for (const auto& term : terms) {
    if (starts_with(term, "gpu:") || starts_with(term, "hbm:")) {
      options.slowdowns.push_back(replay::parse_gpu_slowdown(term, origin, scenario.gpus));
      const replay::GpuSlowdown& slow = options.slowdowns.back();
      replay::check_slowed_step_within_limits(scenario, std::min(slow.speed, slow.hbm), term, origin);
    } else if (starts_with(term, "nic:") || starts_with(term, "link:") || starts_with(term, "leaf:")) {
      parts.push_back(term);
    } else {
      throw InputError(origin, "", "'" + term +
                                       "': unknown part (expected gpu:RANK=SPEED, hbm:RANK=SHARE, nic:RANK=SHARE, "
                                       "link:NAME=SHARE or leaf:ID=uplinks:SHARE)");
    }
  }
  if (parts.empty()) return;
  if (!options.fabric) {
    throw InputError(origin, "", "'" + parts.front() +
                                     "': a fabric part slows the step only on the shared flow fabric, and this step's "
                                     "communication is isolated (each collective its predicted time alone); use "
                                     "--network flow or --comm shared");
  }
  // A degraded build is built apart: the context's cache holds healthy builds only.
  auto degraded = std::make_shared<fabric::Fabric>(replay::pool_build(scenario), static_cast<int>(options.fabric->gpus()));
  for (const auto& part : parts) fabric::apply_degradation(*degraded, fabric::parse_degradation(part, origin, *degraded));
  options.healthy_fabric = std::move(options.fabric);
  options.fabric = std::move(degraded);
}

}  // namespace ctwin::api
