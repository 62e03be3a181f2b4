#include "ctwin/replay/step_limits.hpp"

#include <algorithm>
#include <cstdio>
#include <utility>

#include "ctwin/core/error.hpp"
#include "ctwin/workload/flops.hpp"

namespace ctwin::replay {

namespace {

// The step's hardware FLOPs per GPU and the GPU's fastest peak.
std::pair<double, double> flops_and_peak(const Scenario& s) {
  double peak = 0;
  for (const auto& [dtype, rate] : s.gpu.peak_dense) peak = std::max(peak, rate.per_second());
  if (!(peak > 0)) throw InputError(s.gpu.name, "/peak_dense", "the GPU profile gives no compute rate");
  return {workload::step_flops(s.model, s.split).hardware.count() / static_cast<double>(s.gpus), peak};
}

}  // namespace

void check_slowed_step_within_limits(const Scenario& s, double share, const std::string& term, const std::string& flag) {
  const auto [flops_per_gpu, peak] = flops_and_peak(s);
  const double seconds = flops_per_gpu / peak / share;
  if (!(seconds <= kMaxStepComputeSeconds)) {
    char text[240];
    std::snprintf(text, sizeof text,
                  "'%s': a step's compute on that GPU would take at least %.3g s, beyond the %g s ctwin simulates "
                  "(a GPU that slow is failed, not slow)",
                  term.c_str(), seconds, kMaxStepComputeSeconds);
    throw InputError(flag, "", text);
  }
}

void check_step_within_limits(const Scenario& s) {
  const auto [flops_per_gpu, peak] = flops_and_peak(s);
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
