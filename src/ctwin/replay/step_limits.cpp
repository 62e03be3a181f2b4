#include "ctwin/replay/step_limits.hpp"

#include <algorithm>
#include <cstdio>

#include "ctwin/core/error.hpp"
#include "ctwin/workload/flops.hpp"

namespace ctwin::replay {

void check_step_within_limits(const Scenario& s) {
  double peak = 0;
  for (const auto& [dtype, rate] : s.gpu.peak_dense) peak = std::max(peak, rate.per_second());
  if (!(peak > 0)) throw InputError(s.gpu.name, "/peak_dense", "the GPU profile gives no compute rate");
  const double flops_per_gpu = workload::step_flops(s.model, s.split).hardware.count() / static_cast<double>(s.gpus);
  const double seconds = flops_per_gpu / peak;
  if (!(seconds <= kMaxStepComputeSeconds)) {
    char text[240];
    std::snprintf(text, sizeof text,
                  "one step is at least %.3g s of compute per GPU (%.3g FLOPs at %s's peak), beyond the %g s ctwin "
                  "simulates: reduce seq_len (attention grows with its square) or global_batch",
                  seconds, flops_per_gpu, s.gpu.name.c_str(), kMaxStepComputeSeconds);
    throw InputError(s.split.origin.source, "/training/seq_len", text);
  }
}

}  // namespace ctwin::replay
