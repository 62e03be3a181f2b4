#pragma once
// The network layer's part of the public boundary (docs/architecture.md, "The public boundary"):
// the network model kinds (`--network`), traffic patterns (`ctwin traffic`) and, for `ctwin bench`,
// the flow model itself.

#include "ctwin/network/flow_model.hpp"
#include "ctwin/network/network_model.hpp"
#include "ctwin/network/traffic_pattern.hpp"
