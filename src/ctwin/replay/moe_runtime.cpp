#include "ctwin/replay/moe_runtime.hpp"

#include <algorithm>

namespace ctwin::replay {

// An expert cannot receive more than every token's copy: no real routing comes near this bound,
// which only keeps absurd values out.
constexpr double kMostLoad = 64;

double MoeRuntime::expert_load() const {
  if (capacity_factor <= 0) return imbalance;
  return pad_to_capacity ? capacity_factor : std::min(imbalance, capacity_factor);
}

MoeRuntime read_moe_runtime(JsonObjectReader reader, const MoeRuntime& defaults) {
  MoeRuntime r = defaults;
  r.imbalance = reader.number_or("imbalance", 1.0, kMostLoad, r.imbalance);
  if (reader.has("capacity_factor")) r.capacity_factor = reader.number("capacity_factor", 0.01, kMostLoad);
  r.pad_to_capacity = reader.boolean_or("pad_to_capacity", r.pad_to_capacity);
  if (r.pad_to_capacity && r.capacity_factor <= 0) {
    reader.fail("pad_to_capacity", "needs a capacity_factor (Megatron-Core pads experts to their capacity)");
  }
  r.permute_fusion = reader.boolean_or("permute_fusion", r.permute_fusion);
  reader.finish();
  return r;
}

}  // namespace ctwin::replay
