#include "ctwin/validation/scaling_validation.hpp"

#include "ctwin/api/report_json.hpp"

namespace ctwin::api {

ScalingValidation validate_scaling(const ScalingValidationRequest& request, const std::filesystem::path& repo_root) {
  ScalingValidation out;
  out.network = request.network;
  out.cases = std::make_shared<const analysis::ScalingCases>(
      analysis::load_scaling_cases(resolve_data_path(request.cases), repo_root));
  for (const auto& study : out.cases->studies) {
    out.results.push_back(analysis::validate_scaling(study, repo_root, request.network, request.overrides));
  }
  return out;
}

nlohmann::json scaling_validation_json(const ScalingValidation& validation) {
  nlohmann::json studies = nlohmann::json::array();
  for (const auto& c : validation.results) {
    nlohmann::json measured = nlohmann::json::array();
    for (const auto& m : c.points) {
      measured.push_back({{"run", m.measured.run}, {"gpus", m.measured.gpus}, {"measured_mfu", m.measured.mfu},
                          {"predicted_mfu", m.predicted}, {"error", m.error}});
    }
    studies.push_back({{"id", c.scaling_case->id},
                       {"model", c.study.model},
                       {"points", scaling_points_json(c.study)},
                       {"measured", measured},
                       {"measured_ratio", c.measured_ratio},
                       {"measured_ratio_low", c.measured_ratio_low},
                       {"measured_ratio_high", c.measured_ratio_high},
                       {"predicted_ratio", c.predicted_ratio},
                       {"trend_reproduced", c.trend_reproduced()}});
  }
  return {{"network", network::name(validation.network)}, {"studies", studies}};
}

}  // namespace ctwin::api
