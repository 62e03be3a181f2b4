#pragma once
// The host's side of a training step: every kernel outside a CUDA graph costs the host
// GpuSpec::host_launch to issue. While the GPU has queued work that cost is hidden. A
// device-to-host synchronisation empties the queue: Megatron-Core's dropless alltoall dispatcher
// copies the tokens per expert to the host before it permutes (token_dispatcher.py,
// MoEAlltoAllTokenDispatcher: the all-to-all's split sizes and TransformerEngine's grouped GEMM
// m_splits are host lists), so the host waits for the GPU, and then the GPU waits for the host
// to issue what follows: at least one launch, and more while the following kernels are shorter
// than a launch.
//
// After the sync the host issues kernel i's launches back to back (each `host_launch`); the GPU
// starts a launch's share of the work once it is issued and the previous work is done. Exposed
// time = when the GPU finishes − the sum of the GPU times. Closed forms (the oracle tests): every
// kernel longer than a launch exposes one launch; n kernels of d < L each expose n·(L − d) + d;
// no launch cost exposes nothing.
//
// CUDA graphs (scenario "host": {"cuda_graphs": true}) replay captured kernels with one launch,
// which is what removes the exposure; a dropless dispatcher's sync cannot be captured, so
// Megatron graphs MoE layers only with padded, fixed-size routing (--moe-pad-expert-input-to-
// capacity): the switch says the scenario runs that way.
// Not modelled: host-bound stretches without a sync (the host is assumed ahead of the GPU there),
// Python's own time between the sync and the first launch.

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
