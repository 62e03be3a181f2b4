#pragma once
// The fabric's part of the public boundary (docs/architecture.md, "The public boundary"): front
// ends (src/ctwin/cli/, python/src/) name these through api/, never fabric/ itself: a topology file
// (ClusterSpec), a built cluster (Fabric), its summary (FabricSummary) and build warnings.

#include "ctwin/fabric/build_checks.hpp"
#include "ctwin/fabric/cluster_spec.hpp"
#include "ctwin/fabric/fabric.hpp"
#include "ctwin/fabric/summary.hpp"
