#pragma once
// The GEMM dtype a training precision runs its matrix multiplications in (fp8 training keeps
// bf16 activations and runs the GEMMs in fp8, as Transformer Engine does).

#include "ctwin/compute/dtype.hpp"
#include "ctwin/workload/parallel_config.hpp"

namespace ctwin::replay {

[[nodiscard]] inline compute::Dtype gemm_dtype(workload::Precision p) {
  switch (p) {
    case workload::Precision::kFp16: return compute::Dtype::kFp16;
    case workload::Precision::kFp8: return compute::Dtype::kFp8;
    case workload::Precision::kBf16: break;
  }
  return compute::Dtype::kBf16;
}

}  // namespace ctwin::replay
