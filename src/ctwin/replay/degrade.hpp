#pragma once
// Degraded parts in a synchronous step: a GPU running at a fraction of its speed (thermal or
// power throttling). Every collective of its stage (TP inside the layer, DP at the end of the
// step) waits for it, so with identical ranks replayed once per pipeline stage, the slow GPU's
// stage runs all its kernels at the slow speed: its compute-stream ops take duration / speed.
// Several slow GPUs in one stage: the slowest gates it.

#include <cstdint>
#include <string>
#include <vector>

#include "ctwin/replay/op_graph.hpp"

namespace ctwin::replay {

struct GpuSlowdown {
  std::int64_t gpu = 0;  ///< global rank, Megatron's order (stage-major: stage = gpu / (tp·cp·dp))
  double speed = 1;      ///< fraction of the nominal speed, in (0, 1]
};

/// "gpu:123=0.8". InputError naming `flag` for any other form, a speed outside (0, 1] or a GPU
/// that is not in a job of `gpus` GPUs.
[[nodiscard]] GpuSlowdown parse_gpu_slowdown(const std::string& text, const std::string& flag, std::int64_t gpus);

/// Scales the compute-stream ops of each slow GPU's stage.
void apply_slowdowns(StepWork& work, const std::vector<GpuSlowdown>& slowdowns);

}  // namespace ctwin::replay
