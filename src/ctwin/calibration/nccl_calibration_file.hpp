#pragma once
// A cluster's calibration as a file: what `ctwin calibrate --nccl` writes and `--calibration`
// reads back. It holds the fitted values (link efficiencies, protocol scales) and, for people,
// the fit report and the logs it came from.
//
//   {"ctwin_calibration": "nccl", "cluster": "topologies/dgx-h100-superpod.json",
//    "link_efficiency": {"nvlink": 0.79, "pcie": 0.76, "nic": 0.97, "switch_link": 1},
//    "collectives": {"latency_scale": {"ll": 1.1, "ll128": 1, "simple": 0.9},
//                    "ll_share_scale": 1, "ll128_share_scale": 1, "nvls_scale": 0.95},
//    "fitted_on": [...], "fit": {...}}

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ctwin/calibration/nccl_fit.hpp"

namespace ctwin::calibration {

[[nodiscard]] nlohmann::json nccl_calibration_json(const NcclFitReport& report, const std::string& cluster,
                                                   const std::vector<std::string>& fitted_on,
                                                   const std::vector<std::string>& held_out);

/// Reads a calibration file strictly; InputError naming the file and field otherwise.
[[nodiscard]] NcclCalibration read_nccl_calibration(const std::filesystem::path& path);
/// The same for a document already read (a calibration bundle's "nccl" section at `pointer`).
[[nodiscard]] NcclCalibration parse_nccl_calibration(const nlohmann::json& document, const std::string& source,
                                                     const std::string& pointer);

}  // namespace ctwin::calibration
