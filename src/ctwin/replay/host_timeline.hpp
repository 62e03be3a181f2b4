#pragma once
// The host as a serial resource of each rank: it must issue every kernel and collective of a
// step, one after another, and a kernel cannot start before it is issued. Eager PyTorch spends
// CPU time per op (Python, autograd, the ATen dispatcher, the driver's launch) before its kernel
// is queued; while the host is ahead of the GPU that time is hidden, when it is behind the GPU
// idles. Models with small hidden sizes and many small experts (Qwen3-30B-A3B, GPT-OSS) issue
// many short kernels per layer, where this decides the step.
//
// Host cost of one op (a scenario's OpNode outside a CUDA graph):
//   host_launch · (factor + launches − 1)
// host_launch is the GPU profile's eager-op cost (compute/gpu_spec.hpp, default 10 us); factor is
// what one op costs inside a training step's forward+backward relative to a bare eager launch,
// fitted on the H200 kernel profile's host columns (calibration/host_profile.hpp: the router's
// rows for ordinary ops, the expert blocks' rows at 4,096 tokens for grouped GEMMs; judged on the
// permutation rows and the 8,192-token expert rows); the further launches of one op (Transformer-
// Engine's grouped linear issues one cuBLAS GEMM per local expert from C++) cost one bare launch
// each. A dropless dispatcher's device-to-host copy is one op.
//
// Timeline within a pass (a chunk's forward or backward on one micro-batch, its ops in issue order):
//   - after a sync (the host waits until the GPU has finished what it queued: moe_dispatch_sync)
//     host and GPU start together, and each kernel starts at max(issued, previous kernel's end):
//     the GPU's idle time is exact for that stretch (issue_timeline);
//   - before the pass's first sync the host's lead is not known (it issued earlier passes while
//     the GPU ran them); the stretch is exposed by what the host needs beyond the GPU,
//     max(0, host − GPU) (the steady-state bound: the GPU cannot run passes faster than the host
//     issues them). A GPU-bound stretch therefore exposes nothing.
// CUDA graphs (host.cuda_graphs) replay a captured pass with one launch: every op costs nothing
// but the pass's first, which costs one launch.
// Not modelled: a lead carried from one pass into the next beyond that bound, the host's own
// work between passes (the pipeline schedule's Python, the optimizer's), ops that run only on the
// first or last micro-batch (one-off: the time of a middle micro-batch's pass is what repeats).

#include <vector>

#include "ctwin/core/units.hpp"
#include "ctwin/replay/op_graph.hpp"
#include "ctwin/replay/scenario.hpp"

namespace ctwin::replay {

/// Host cost of an op, in bare eager launches (H200 kernel profile fit, calibration/host_profile.hpp).
inline constexpr double kHostOpFactor = 2.195;      ///< an op in a forward+backward autograd step
inline constexpr double kHostGroupedFactor = 3.50;  ///< a grouped-GEMM op (the expert block's kernels)

struct HostKernel {
  SimTime gpu;        ///< time it holds the compute stream (0: a collective the stream does not wait for)
  SimTime host;       ///< host time to issue all its launches
  int launches = 1;   ///< the GPU starts each launch's share of `gpu` once that launch is issued
  bool sync = false;  ///< the host waits for the GPU to finish everything queued before issuing it
};

struct HostTimeline {
  SimTime host_busy;                ///< Σ host costs (conservation)
  SimTime gpu_busy;                 ///< Σ GPU times
  SimTime end;                      ///< when the GPU finishes the last kernel (host and GPU start at 0)
  std::vector<SimTime> gpu_idle;    ///< per kernel: the GPU's wait for the host just before it
  [[nodiscard]] SimTime exposed() const;  ///< Σ gpu_idle = end − gpu_busy
};

/// Host and GPU start together at 0 (after a sync); a sync kernel makes the host wait for the GPU.
[[nodiscard]] HostTimeline issue_timeline(const std::vector<HostKernel>& kernels);

/// Host cost of `op` in `scenario` (outside a CUDA graph).
[[nodiscard]] SimTime host_cost(const OpNode& op, const Scenario& scenario);

/// Puts the GPU's waits for the host into one pass's ops: each sync op's duration becomes the
/// exposure of the stretch after it; the stretch before the first sync adds max(0, host − GPU) to
/// the first sync, or, with no sync, appends a host op "host_issue" (when it is not zero). Kernel
/// durations must already carry the profile's training_time_scale.
void apply_host_issue(std::vector<OpNode>& ops, const Scenario& scenario);
void apply_host_issue(ChunkWork& work, const Scenario& scenario);

}  // namespace ctwin::replay
