#pragma once
// Writing a calibrated GPU profile: the base profile's JSON, unchanged, with "gemm_table"
// replaced by the fitted one and a "calibration" object saying where it came from.

#include <filesystem>

#include <nlohmann/json.hpp>

#include "ctwin/compute/gemm_table.hpp"

namespace ctwin::calibration {

[[nodiscard]] nlohmann::json calibrated_profile(nlohmann::json base, const compute::GemmEfficiencyTable& table,
                                                nlohmann::json calibration);

/// Writes `profile` as indented JSON; InputError naming the path if it cannot be written.
void write_profile(const nlohmann::json& profile, const std::filesystem::path& path);

}  // namespace ctwin::calibration
