#include "ctwin/validation/kernel_validation.hpp"

#include <algorithm>
#include <cmath>

#include "ctwin/api/data_dir.hpp"
#include "ctwin/api/gpu_profile.hpp"

namespace ctwin::api {
namespace {

double error(double predicted, double measured) { return predicted / measured - 1; }

}  // namespace

KernelValidation validate_kernels(const std::string& profile_file, const std::string& gpu_name,
                                  const std::string& gpu_field) {
  const auto path = resolve_data_path(profile_file);
  const calibration::KernelProfile profile = calibration::read_kernel_profile(path);
  const compute::GpuSpec gpu = load_gpu_option(gpu_name, gpu_field);
  KernelValidation v;
  v.profile = path.string();
  v.measured_gpu = profile.gpu;
  v.gpu = gpu.name;

  std::vector<calibration::ExpertBlockRow> expert_fit;
  for (const auto& row : profile.experts) {
    if (row.tokens == 4096) expert_fit.push_back(row);
  }
  if (expert_fit.empty()) expert_fit = profile.experts;  // another profile: fit on all, say so by held_out = 0 rows
  v.half_speed_rows = profile.experts.empty() ? 0 : calibration::fit_half_speed_rows(gpu, expert_fit);
  std::vector<calibration::RoutingRow> permute_fit;
  for (std::size_t i = 0; i < profile.routing.size(); i += 2) permute_fit.push_back(profile.routing[i]);
  v.permute_hbm_efficiency = profile.routing.empty() ? 0 : calibration::fit_permute_efficiency(gpu, permute_fit);

  std::vector<double> dense, per_expert, fit, held;
  for (const auto& row : profile.experts) {
    ExpertBlockCheck check{row, calibration::predict_expert_block(gpu, row, v.half_speed_rows),
                           expert_fit.size() < profile.experts.size() && row.tokens != 4096};
    dense.push_back(error(check.predicted.dense_ms, row.dense_ms));
    per_expert.push_back(error(check.predicted.per_expert_ms, row.grouped_ms));
    (check.held_out ? held : fit).push_back(error(check.predicted.rows_model_ms, row.grouped_ms));
    v.experts.push_back(check);
  }
  v.dense_all = error_stats(dense);
  v.per_expert_all = error_stats(per_expert);
  v.rows_model_fit = error_stats(fit);
  v.rows_model_held_out = error_stats(held);

  std::vector<double> permute_fit_errors, permute_held;
  for (std::size_t i = 0; i < profile.routing.size(); ++i) {
    const auto& row = profile.routing[i];
    PermuteCheck check{row, calibration::predict_permute_ms(gpu, row, v.permute_hbm_efficiency), i % 2 == 1};
    (check.held_out ? permute_held : permute_fit_errors).push_back(error(check.predicted_ms, row.permute_ms));
    v.permutes.push_back(check);
  }
  v.permute_fit = error_stats(permute_fit_errors);
  v.permute_held_out = error_stats(permute_held);
  return v;
}

nlohmann::json kernel_validation_json(const KernelValidation& v) {
  nlohmann::json experts = nlohmann::json::array();
  for (const auto& c : v.experts) {
    const auto& r = c.row;
    experts.push_back({{"model", r.model},
                       {"tokens", r.tokens},
                       {"local_experts", r.local_experts},
                       {"rows_per_expert", r.rows_per_expert},
                       {"held_out", c.held_out},
                       {"measured_ms", {{"grouped", r.grouped_ms}, {"dense", r.dense_ms}, {"loop", r.loop_ms}, {"loop_host", r.loop_host_ms}}},
                       {"predicted_ms",
                        {{"dense", c.predicted.dense_ms},
                         {"per_expert", c.predicted.per_expert_ms},
                         {"rows_model", c.predicted.rows_model_ms}}}});
  }
  nlohmann::json permutes = nlohmann::json::array();
  for (const auto& c : v.permutes) {
    const auto& r = c.row;
    permutes.push_back({{"model", r.model},
                        {"tokens", r.tokens},
                        {"top_k", r.top_k},
                        {"hidden", r.hidden},
                        {"held_out", c.held_out},
                        {"bytes", calibration::permute_bytes(r)},
                        {"measured_ms", r.permute_ms},
                        {"predicted_ms", c.predicted_ms},
                        {"router_measured_ms", r.router_ms},
                        {"router_host_ms", r.router_host_ms}});
  }
  return {{"profile", v.profile},
          {"measured_gpu", v.measured_gpu},
          {"gpu", v.gpu},
          {"fitted", {{"grouped_half_speed_rows", v.half_speed_rows}, {"permute_hbm_efficiency", v.permute_hbm_efficiency}}},
          {"summary",
           {{"dense_control", error_stats_json(v.dense_all, "rows")},
            {"grouped_per_expert_model", error_stats_json(v.per_expert_all, "rows")},
            {"grouped_rows_model_fit", error_stats_json(v.rows_model_fit, "rows")},
            {"grouped_rows_model_held_out", error_stats_json(v.rows_model_held_out, "rows")},
            {"permute_fit", error_stats_json(v.permute_fit, "rows")},
            {"permute_held_out", error_stats_json(v.permute_held_out, "rows")}}},
          {"experts", experts},
          {"permutes", permutes}};
}

}  // namespace ctwin::api
