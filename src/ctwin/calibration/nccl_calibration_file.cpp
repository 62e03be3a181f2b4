#include "ctwin/calibration/nccl_calibration_file.hpp"

#include "ctwin/core/error.hpp"
#include "ctwin/core/json_reader.hpp"

namespace ctwin::calibration {
namespace {

nlohmann::json cases_json(const std::vector<NcclCaseError>& cases) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& c : cases) out.push_back({{"log", c.name}, {"before", error_stats_json(c.before, "rows")}, {"after", error_stats_json(c.after, "rows")}});
  return out;
}

}  // namespace

nlohmann::json nccl_calibration_json(const NcclFitReport& report, const std::string& cluster,
                                     const std::vector<std::string>& fitted_on, const std::vector<std::string>& held_out) {
  const NcclCalibration& c = report.calibration;
  nlohmann::json efficiency{{"pcie", c.pcie_efficiency}, {"nic", c.nic_efficiency}, {"switch_link", c.switch_link_efficiency}};
  if (c.nvlink_efficiency > 0) efficiency["nvlink"] = c.nvlink_efficiency;
  nlohmann::json parameters = nlohmann::json::array();
  for (const auto& p : report.parameters) {
    parameters.push_back({{"name", p.name}, {"default", p.initial}, {"fitted", p.fitted}, {"identified", p.identified},
                          {"reason", p.reason}});
  }
  nlohmann::json path_factors = nlohmann::json::array();
  for (const auto& f : report.path_factors) {
    path_factors.push_back({{"path", f.path}, {"links", f.links}, {"scale", f.scale}, {"identified", f.identified}});
  }
  nlohmann::json fit{{"parameters", parameters},
                     {"path_factors", path_factors},
                     {"iterations", report.iterations},
                     {"evaluations", report.evaluations},
                     {"fit_before", error_stats_json(report.fit_before, "rows")},
                     {"fit_after", error_stats_json(report.fit_after, "rows")},
                     {"logs", cases_json(report.fitted)}};
  if (!report.holdout.empty()) {
    fit["holdout_before"] = error_stats_json(report.holdout_before, "rows");
    fit["holdout_after"] = error_stats_json(report.holdout_after, "rows");
    fit["holdout_logs"] = cases_json(report.holdout);
  }
  return {{"ctwin_calibration", "nccl"},
          {"cluster", cluster},
          {"link_efficiency", efficiency},
          {"collectives",
           {{"latency_scale", {{"ll", c.tuning.latency_scale[0]}, {"ll128", c.tuning.latency_scale[1]}, {"simple", c.tuning.latency_scale[2]}}},
            {"ll_share_scale", c.tuning.ll_share_scale},
            {"ll128_share_scale", c.tuning.ll128_share_scale},
            {"nvls_scale", c.tuning.nvls_scale}}},
          {"fitted_on", fitted_on},
          {"held_out", held_out},
          {"fit", fit}};
}

NcclCalibration read_nccl_calibration(const std::filesystem::path& path) {
  return parse_nccl_calibration(load_json_file(path), path.string(), "");
}

NcclCalibration parse_nccl_calibration(const nlohmann::json& document, const std::string& source,
                                       const std::string& pointer) {
  if (!document.is_object()) throw InputError(source, pointer, "expected an nccl calibration object");
  JsonObjectReader top(document, source, pointer);
  if (top.choice("ctwin_calibration", {"nccl"}) != "nccl") top.fail("ctwin_calibration", "not an nccl calibration");
  NcclCalibration c;
  {
    auto efficiency = top.object("link_efficiency");
    c.nvlink_efficiency = efficiency.number_or("nvlink", 0.01, 1, 0);
    c.pcie_efficiency = efficiency.number("pcie", 0.01, 1);
    c.nic_efficiency = efficiency.number("nic", 0.01, 1);
    c.switch_link_efficiency = efficiency.number("switch_link", 0.01, 1);
    efficiency.finish();
  }
  {
    auto collectives = top.object("collectives");
    auto latency = collectives.object("latency_scale");
    c.tuning.latency_scale = {latency.number("ll", 0.01, 100), latency.number("ll128", 0.01, 100),
                              latency.number("simple", 0.01, 100)};
    latency.finish();
    c.tuning.ll_share_scale = collectives.number("ll_share_scale", 0.01, 100);
    c.tuning.ll128_share_scale = collectives.number("ll128_share_scale", 0.01, 100);
    c.tuning.nvls_scale = collectives.number("nvls_scale", 0.01, 100);
    collectives.finish();
  }
  // What the fit was made from and how well it did: for people, not read back.
  for (const char* documentation : {"cluster", "fitted_on", "held_out", "fit"}) (void)top.optional(documentation);
  top.finish();
  return c;
}

}  // namespace ctwin::calibration
