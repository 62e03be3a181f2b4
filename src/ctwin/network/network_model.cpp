#include "ctwin/network/network_model.hpp"

#include <algorithm>

#include "ctwin/core/error.hpp"
#include "ctwin/network/analytical_model.hpp"
#include "ctwin/network/flow_model.hpp"
#ifdef CTWIN_WITH_SIMGRID
#include "ctwin/network/simgrid_model.hpp"
#endif

namespace ctwin::network {

std::vector<std::string> network_model_names() {
#ifdef CTWIN_WITH_SIMGRID
  return {"analytical", "flow", "simgrid"};
#else
  return {"analytical", "flow"};
#endif
}

std::unique_ptr<NetworkModel> make_network_model(std::string_view name, const fabric::Fabric& fabric,
                                                 engine::Simulator& simulator) {
  if (name == "analytical") return std::make_unique<AnalyticalModel>(fabric, simulator);
  if (name == "flow") return std::make_unique<FlowModel>(fabric, simulator);
#ifdef CTWIN_WITH_SIMGRID
  if (name == "simgrid") return std::make_unique<SimGridModel>(fabric, simulator);
#endif
  std::string list;
  for (const auto& known : network_model_names()) list += (list.empty() ? "" : ", ") + known;
  throw InputError("--network", "", "unknown network model '" + std::string(name) + "' (expected " + list + ")");
}

}  // namespace ctwin::network
