#include "ctwin/calibration/host_profile.hpp"

#include <cmath>
#include <utility>

#include "ctwin/core/error.hpp"

namespace ctwin::calibration {
namespace {

// exp(mean log(measured / (launch · kernels))): the factor minimising the squared log error.
double fit_factor(const std::vector<HostRow>& rows, const std::string& kind, double launch_ms) {
  double sum = 0;
  int n = 0;
  for (const auto& row : rows) {
    if (row.kind != kind || !row.fit) continue;
    sum += std::log(row.measured_ms / (launch_ms * row.kernels));
    ++n;
  }
  return n > 0 ? std::exp(sum / n) : 0;
}

ErrorStats errors_of(const std::vector<HostRow>& rows, bool fit) {
  std::vector<double> e;
  for (const auto& row : rows) {
    if (row.fit == fit) e.push_back(row.error());
  }
  return error_stats(std::move(e));
}

}  // namespace

HostProfileFit fit_host_profile(const KernelProfile& profile, const std::string& source) {
  if (profile.launch_host_us <= 0) throw InputError(source, "/rows", "no launch_overhead row to take the launch unit from");
  HostProfileFit out;
  out.launch_us = profile.launch_host_us;
  for (const auto& r : profile.routing) {
    if (r.router_host_ms > 0) out.rows.push_back({"router", r.model, r.tokens, 0, kRouterKernels, true, r.router_host_ms});
    if (r.permute_host_ms > 0) out.rows.push_back({"permute", r.model, r.tokens, 0, kPermuteKernels, false, r.permute_host_ms});
  }
  for (const auto& r : profile.experts) {
    if (r.grouped_host_ms <= 0) continue;
    out.rows.push_back({"grouped", r.model, r.tokens, r.local_experts, kGroupedBlockKernels, r.tokens <= 4096,
                        r.grouped_host_ms});
  }
  const double launch_ms = out.launch_us * 1e-3;
  out.op_factor = fit_factor(out.rows, "router", launch_ms);
  out.grouped_factor = fit_factor(out.rows, "grouped", launch_ms);
  if (out.op_factor <= 0 || out.grouped_factor <= 0) {
    throw InputError(source, "/rows", "needs router and grouped expert rows with host times to fit the host costs");
  }
  for (auto& row : out.rows) {
    row.predicted_ms = launch_ms * row.kernels * (row.kind == "grouped" ? out.grouped_factor : out.op_factor);
  }
  out.fit = errors_of(out.rows, true);
  out.held_out = errors_of(out.rows, false);
  return out;
}

}  // namespace ctwin::calibration
