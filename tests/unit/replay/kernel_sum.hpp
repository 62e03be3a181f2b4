#pragma once
// The oracle of the PP = 1, free-communication tests: the compute kernels of every micro-batch's
// forward and backward of a one-chunk stage, summed.

#include <cstdint>

#include "ctwin/replay/op_graph.hpp"

namespace ctwin::replay::testing {

inline SimTime pass_kernels(const StageWork& stage, std::int64_t micro_batches) {
  SimTime kernels;
  for (std::int64_t i = 0; i < micro_batches; ++i) {
    kernels += compute_time_of(stage.chunks[0].forward, i == 0, i == micro_batches - 1);
    kernels += compute_time_of(stage.chunks[0].backward, i == 0, i == micro_batches - 1);
  }
  return kernels;
}

}  // namespace ctwin::replay::testing
