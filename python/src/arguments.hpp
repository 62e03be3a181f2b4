#pragma once
// Keyword arguments several registrations read the same way.

#include <string>

#include "ctwin/core/error.hpp"
#include "ctwin/api/public_network.hpp"

namespace ctwin::python {

/// The network a training step runs on: analytical or flow; InputError naming `network` otherwise.
inline network::ModelKind step_network_arg(const std::string& network) {
  const network::ModelKind kind = network::parse_model_kind(network, "network", "");
  if (kind != network::ModelKind::kAnalytical && kind != network::ModelKind::kFlow) {
    throw InputError("network", "", "a training step runs on analytical or flow, not '" + network + "'");
  }
  return kind;
}

}  // namespace ctwin::python
