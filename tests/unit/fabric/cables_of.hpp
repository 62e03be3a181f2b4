#pragma once
// Cables of one kind in a fabric summary, summed over its cable groups.

#include "ctwin/fabric/summary.hpp"

namespace ctwin::fabric {

inline long long cables_of(const FabricSummary& summary, LinkKind kind) {
  long long total = 0;
  for (const auto& group : summary.cables) {
    if (group.kind == kind) total += group.cables;
  }
  return total;
}

}  // namespace ctwin::fabric
