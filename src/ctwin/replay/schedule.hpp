#pragma once
// Pipeline schedules as the order in which each pipeline rank runs its forward and backward
// passes, following Megatron-LM's schedules (megatron/core/pipeline_parallel/schedules.py):
//   GPipe: every forward, then every backward.
//   1F1B (PipeDream-Flush): rank r runs min(pp − r − 1, m) warm-up forwards, then alternates one
//     forward and one backward, then drains the remaining backwards.
//   Interleaved 1F1B (Narayanan et al., SC'21): with v model chunks per rank and m·v passes of
//     each kind, warm-up min(m·v, 2·(pp − r − 1) + (v − 1)·pp) forwards (all of them when
//     m = pp); the k-th forward runs chunk (k mod pp·v) / pp, the k-th backward chunk
//     v − 1 − (k mod pp·v) / pp, both on micro-batch (k / (pp·v))·pp + k mod pp.
// The dependencies between ranks are not part of the order; the replay enforces them.

#include <cstdint>
#include <vector>

#include "ctwin/workload/parallel_config.hpp"

namespace ctwin::replay {

struct PipelineTask {
  bool forward = true;
  int chunk = 0;        ///< model chunk on this rank (virtual stage chunk·pp + rank)
  int micro_batch = 0;
  friend bool operator==(const PipelineTask&, const PipelineTask&) = default;
};

/// Per pipeline rank, its passes in order. Interleaved needs micro_batches divisible by pp
/// (validate() checks it); `chunks` must be 1 for the other schedules.
[[nodiscard]] std::vector<std::vector<PipelineTask>> pipeline_order(workload::PipelineSchedule schedule, int pp,
                                                                    int chunks, int micro_batches);

}  // namespace ctwin::replay
