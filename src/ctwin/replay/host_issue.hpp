#pragma once
// The GPU's wait for the host after a sync when every launch costs the host the same
// `host_launch`: the closed forms of replay/host_timeline.hpp's timeline (which the training step
// uses, with per-op host costs). Every kernel longer than a launch exposes one launch; n kernels
// of d < L each expose n·(L − d) + d; no launch cost exposes nothing.

#include <vector>

#include "ctwin/core/units.hpp"

namespace ctwin::replay {

struct IssuedKernel {
  SimTime gpu;       ///< its time on the GPU (its stream's work that the next kernel waits for)
  int launches = 1;  ///< host launches it takes (a per-expert GEMM loop: one per expert)
};

/// GPU idle time after a sync while the host issues `kernels` in order, `host_launch` each launch.
[[nodiscard]] SimTime exposed_after_sync(const std::vector<IssuedKernel>& kernels, SimTime host_launch);

}  // namespace ctwin::replay
