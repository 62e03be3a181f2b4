#include "ctwin/calibration/calibrated_profile.hpp"

#include <fstream>

#include "ctwin/core/error.hpp"
#include "ctwin/core/json_text.hpp"

namespace ctwin::calibration {

nlohmann::json calibrated_profile(nlohmann::json base, const compute::GemmEfficiencyTable& table,
                                  nlohmann::json calibration) {
  base["calibration"] = std::move(calibration);
  // A borrowed table names a profile next to the base's file, which the output need not sit
  // beside; and once measured, this GPU's own sweep is what should speak for it.
  base.erase("gemm_table_from");
  base["gemm_table"] = compute::gemm_table_to_json(table);
  return base;
}

void write_profile(const nlohmann::json& profile, const std::filesystem::path& path) {
  std::ofstream out(path);
  if (!out) throw InputError(path.string(), "", "cannot write file");
  out << json_text(profile, 2) << '\n';
  if (!out) throw InputError(path.string(), "", "write failed");
}

}  // namespace ctwin::calibration
