#include "ctwin/network/network_model.hpp"

#include <algorithm>

#include "ctwin/core/error.hpp"
#include "ctwin/fabric/fabric.hpp"
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

std::string_view name(ModelKind kind) {
  switch (kind) {
    case ModelKind::kAnalytical: return "analytical";
    case ModelKind::kFlow: return "flow";
    case ModelKind::kSimgrid: return "simgrid";
  }
  return "flow";
}

ModelKind parse_model_kind(std::string_view text, const std::string& file, const std::string& field) {
  for (ModelKind kind : {ModelKind::kAnalytical, ModelKind::kFlow, ModelKind::kSimgrid}) {
    const auto known = network_model_names();
    if (name(kind) == text && std::find(known.begin(), known.end(), name(kind)) != known.end()) return kind;
  }
  std::string list;
  for (const auto& known : network_model_names()) list += (list.empty() ? "" : ", ") + known;
  throw InputError(file, field, "unknown network model '" + std::string(text) + "' (expected " + list + ")");
}

void require_ecmp_routing(const fabric::Fabric& fabric, std::string_view model) {
  // A model with one route per GPU pair refuses rather than quietly hash the transfer onto one
  // path as ECMP would.
  if (fabric.spec().fabric.routing != fabric::RoutingPolicy::kEcmp) {
    throw InputError(fabric.spec().file, "/fabric/routing",
                     "adaptive is modelled on --network analytical and flow, not " + std::string(model));
  }
}

std::unique_ptr<NetworkModel> make_network_model(ModelKind kind, const fabric::Fabric& fabric, engine::Simulator& simulator) {
  // flow splits adaptive transfers over equal-cost paths; simgrid has one route per pair.
  if (kind == ModelKind::kSimgrid) require_ecmp_routing(fabric, name(kind));
  switch (kind) {
    case ModelKind::kAnalytical: return std::make_unique<AnalyticalModel>(fabric, simulator);
    case ModelKind::kFlow: return std::make_unique<FlowModel>(fabric, simulator);
    case ModelKind::kSimgrid:
#ifdef CTWIN_WITH_SIMGRID
      return std::make_unique<SimGridModel>(fabric, simulator);
#else
      break;
#endif
  }
  throw InputError("--network", "", "this build of ctwin has no SimGrid backend");
}

}  // namespace ctwin::network
