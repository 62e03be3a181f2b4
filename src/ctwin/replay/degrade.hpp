#pragma once
// Degraded parts in a synchronous step: a GPU running at a fraction of its speed (thermal or
// power throttling). Every collective of its stage (TP inside the layer, DP at the end of the
// step) waits for it, so with identical ranks replayed once per pipeline stage, the slow GPU's
// stage runs all its kernels at the slow speed: its compute-stream ops take duration / speed.
// A GPU whose HBM delivers a share of its bandwidth (`hbm:RANK=SHARE`) runs each kernel at the
// roofline time the compute twin gives for that bandwidth, so only the memory-bound part of a
// kernel slows (a measured GEMM table's times stay as measured). Several slow GPUs in one
// stage: each kernel takes the longest of their times.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ctwin/replay/op_graph.hpp"

namespace ctwin::replay {

struct GpuSlowdown {
  std::int64_t gpu = 0;  ///< global rank, Megatron's order (stage-major: stage = gpu / (tp·cp·dp))
  double speed = 1;      ///< fraction of the nominal speed, in (0, 1]
  double hbm = 1;        ///< fraction of the nominal HBM bandwidth, in (0, 1]
};

/// "gpu:123=0.8" (speed) or "hbm:123=0.5" (HBM bandwidth). InputError naming `flag` for any other
/// form, a share outside (0, 1] or a GPU that is not in a job of `gpus` GPUs.
[[nodiscard]] GpuSlowdown parse_gpu_slowdown(const std::string& text, const std::string& flag, std::int64_t gpus);

/// Scales the compute-stream ops of each slow GPU's stage. `slow_hbm`: the same step's work built
/// with the GPU's HBM bandwidth at each share some slowdown names (by share).
void apply_slowdowns(StepWork& work, const std::vector<GpuSlowdown>& slowdowns,
                     const std::map<double, StepWork>& slow_hbm = {});

}  // namespace ctwin::replay
