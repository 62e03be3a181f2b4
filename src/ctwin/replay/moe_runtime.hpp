#pragma once
// How a scenario's MoE layers route and run (its "moe_runtime" object), apart from the model:
//   imbalance        max over mean tokens per expert on the busiest EP rank (≥ 1). Default 1:
//                    balanced routing, as published MoE benchmarks force it (Megatron-Core's
//                    --moe-router-force-load-balancing; the Megatron-Bridge performance tables'
//                    note "MoE runs force-balance tokens (dropless) unless marked tokendrop"). A
//                    run with a learned router sets what it measured; every EP rank waits for the
//                    busiest at the combine.
//   capacity_factor  token dropping (Megatron-Core --moe-expert-capacity-factor): an expert keeps at
//                    most capacity_factor × its mean share, so the busiest expert's rows are
//                    min(imbalance, capacity_factor) × the mean; with pad_to_capacity
//                    (--moe-pad-expert-input-to-capacity) every expert runs exactly
//                    capacity_factor × the mean. 0: dropless.
//   permute_fusion   TransformerEngine's fused permute/unpermute (--moe-permute-fusion; off by
//                    default as in Megatron-Core): compute/moe_kernels.hpp's two paths.

#include "ctwin/core/json_reader.hpp"

namespace ctwin::replay {

struct MoeRuntime {
  double imbalance = 1.0;
  double capacity_factor = 0;  ///< 0: dropless
  bool pad_to_capacity = false;
  bool permute_fusion = false;

  /// Rows of the busiest expert over the mean share.
  [[nodiscard]] double expert_load() const;
};

/// Reads a scenario's "moe_runtime" object strictly; InputError naming the field. Fields it does
/// not give keep `defaults` (the scenario's software stack's, replay/stack_profile.hpp).
[[nodiscard]] MoeRuntime read_moe_runtime(JsonObjectReader reader, const MoeRuntime& defaults = {});

}  // namespace ctwin::replay
