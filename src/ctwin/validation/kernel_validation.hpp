#pragma once
// `ctwin validate --kernels FILE --gpu PROFILE`: the MoE pieces of a kernel profile
// (calibration/kernel_profile.hpp) against the compute twin, with the grouped-GEMM rows model
// and the permute efficiency fitted on part of the rows and judged on the rest.
//
// Split (fixed, not chosen by the result): expert blocks at 4,096 tokens are the fit set and those
// at 8,192 tokens held out (so the held-out rows have twice the rows per expert of their fit
// counterparts: the fit must carry over in R); permute rows alternate, the first, third, ...
// fitted (Qwen3-30B-A3B and Mixtral in the H200 profile), the others held out (GPT-OSS 120B and
// DeepSeek-V3, the largest).

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ctwin/calibration/kernel_profile.hpp"
#include "ctwin/core/error_stats.hpp"

namespace ctwin::api {

struct ExpertBlockCheck {
  calibration::ExpertBlockRow row;
  calibration::ExpertBlockPrediction predicted;
  bool held_out = false;
};

struct PermuteCheck {
  calibration::RoutingRow row;
  double predicted_ms = 0;
  bool held_out = false;
};

struct KernelValidation {
  std::string profile;  ///< the measured file
  std::string measured_gpu;
  std::string gpu;  ///< the profile predicted with
  double half_speed_rows = 0;  ///< r0, fitted
  double permute_hbm_efficiency = 0;  ///< fitted
  std::vector<ExpertBlockCheck> experts;
  std::vector<PermuteCheck> permutes;
  ErrorStats dense_all, per_expert_all, rows_model_fit, rows_model_held_out, permute_fit, permute_held_out;
};

[[nodiscard]] KernelValidation validate_kernels(const std::string& profile_file, const std::string& gpu,
                                                const std::string& gpu_field = "--gpu");

[[nodiscard]] nlohmann::json kernel_validation_json(const KernelValidation& v);

}  // namespace ctwin::api
