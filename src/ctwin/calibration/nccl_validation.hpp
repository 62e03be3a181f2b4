#pragma once
// The twin against every measured log of a manifest, twice: with the shipped defaults, and
// calibrated the way a user would calibrate their own cluster — fitted on one log of it and
// judged on the others. A cluster with several logs is fitted on its anchor (its widest
// all_reduce) and judged on the rest; a cluster with one log is fitted on every other size
// and judged on the sizes in between.

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ctwin/calibration/nccl_comparison.hpp"
#include "ctwin/calibration/nccl_setups.hpp"
#include "ctwin/fabric/cluster_spec.hpp"

namespace ctwin::calibration {

struct SetupValidation {
  const NcclSetup* setup = nullptr;
  std::string skipped;  ///< why it was not predicted; empty when it was
  LogComparison uncalibrated;
  /// Calibrated on other data of its cluster; only the rows the fit did not see.
  std::optional<LogComparison> calibrated;
  std::string calibrated_on;  ///< the anchor's id, or "alternate sizes of this log"
  bool is_anchor = false;     ///< its rows were fitted, so it has no held-out rows of its own
};

struct ValidationOptions {
  network::ModelKind network = network::ModelKind::kFlow;
  bool calibrate = false;
  /// Reads a topology path of the manifest (the front end knows the data folder and where the
  /// GPU profile that gives the server's architecture lives).
  std::function<fabric::ClusterSpec(const std::string&)> load_topology;
};

/// Validates `selected` setups (pointers into the manifest's list). Logs are read from disk.
[[nodiscard]] std::vector<SetupValidation> validate_setups(const std::vector<NcclSetup>& manifest,
                                                           const std::vector<const NcclSetup*>& selected,
                                                           const ValidationOptions& options);

}  // namespace ctwin::calibration
