// `ctwin validate --kernels FILE --gpu PROFILE`: MoE expert blocks and token permutation measured
// on one GPU against the compute twin (validation/kernel_validation.hpp).

#include "ctwin/cli/validate_run.hpp"

#include <iostream>

#include "ctwin/api/public_validation.hpp"
#include "ctwin/cli/output.hpp"
#include "ctwin/core/json_text.hpp"

namespace ctwin::cli {
namespace {

std::string summary_text(const ErrorStats& m) {
  if (m.count == 0) return "no rows";
  return "median |error| " + fixed(100 * m.median_abs, 1) + "%, max " + fixed(100 * m.max_abs, 1) + "% (" +
         std::to_string(m.count) + " rows)";
}

}  // namespace

api::KernelValidation evaluate_kernel_validation(const KernelValidateRequest& request) {
  return api::validate_kernels(request.file, request.gpu);
}

void print_kernel_validation(const api::KernelValidation& v, Format format) {
  if (format == Format::kJson) {
    std::cout << json_text(api::kernel_validation_json(v), 2) << '\n';
    return;
  }
  Table experts({"model", "tokens", "experts", "rows/expert", "set", "grouped_ms", "per_expert_model_ms", "error",
                 "rows_model_ms", "error", "dense_ms", "dense_pred_ms", "error"});
  for (const auto& c : v.experts) {
    const auto& r = c.row;
    experts.add_row({r.model, std::to_string(r.tokens), std::to_string(r.local_experts), std::to_string(r.rows_per_expert),
                     c.held_out ? "held out" : "fit", fixed(r.grouped_ms, 3), fixed(c.predicted.per_expert_ms, 3),
                     signed_percent(c.predicted.per_expert_ms / r.grouped_ms - 1), fixed(c.predicted.rows_model_ms, 3),
                     signed_percent(c.predicted.rows_model_ms / r.grouped_ms - 1), fixed(r.dense_ms, 3),
                     fixed(c.predicted.dense_ms, 3), signed_percent(c.predicted.dense_ms / r.dense_ms - 1)});
  }
  Table permutes({"model", "tokens", "top_k", "hidden", "set", "MB_moved", "permute_ms", "predicted_ms", "error",
                  "router_ms", "router_host_ms"});
  for (const auto& c : v.permutes) {
    const auto& r = c.row;
    permutes.add_row({r.model, std::to_string(r.tokens), std::to_string(r.top_k), std::to_string(r.hidden),
                      c.held_out ? "held out" : "fit", fixed(calibration::permute_bytes(r) / 1e6, 1),
                      fixed(r.permute_ms, 3), fixed(c.predicted_ms, 3), signed_percent(c.predicted_ms / r.permute_ms - 1),
                      fixed(r.router_ms, 3), fixed(r.router_host_ms, 3)});
  }
  if (format == Format::kCsv) {
    experts.print(std::cout, format);
    std::cout << '\n';
    permutes.print(std::cout, format);
    return;
  }
  std::cout << "kernel profile " << v.profile << " (" << v.measured_gpu << ") against " << v.gpu << "\n"
            << "expert blocks, fwd+bwd, bf16 (time in ms; error = predicted / measured - 1):\n";
  experts.print(std::cout, format, "  ");
  std::cout << "  dense GEMM of the same FLOPs (the GEMM model's control): " << summary_text(v.dense_all) << "\n"
            << "  grouped, per-expert model (today's MoE layer): " << summary_text(v.per_expert_all) << "\n"
            << "  grouped, rows model dense x (1 + r0/R), r0 = " << fixed(v.half_speed_rows, 0)
            << " rows fitted on the fit rows: fit " << summary_text(v.rows_model_fit) << "; held out "
            << summary_text(v.rows_model_held_out) << "\n"
            << "token permute + unpermute, fwd+bwd (eager PyTorch; router: host-bound, not modelled):\n";
  permutes.print(std::cout, format, "  ");
  std::cout << "  HBM efficiency " << fixed(v.permute_hbm_efficiency, 3) << " fitted: fit " << summary_text(v.permute_fit)
            << "; held out " << summary_text(v.permute_held_out) << "\n";
}

}  // namespace ctwin::cli
