#pragma once
// Options every command that builds a fabric shares: --cluster, --gpus, --set, --calibration.

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "ctwin/api/data_dir.hpp"
#include "ctwin/api/evaluate.hpp"
#include "ctwin/api/public_calibration.hpp"
#include "ctwin/api/public_fabric.hpp"

namespace CLI {
class App;
}

namespace ctwin::cli {

struct FabricOptions {
  std::string cluster;
  int gpus = 0;
  std::vector<std::string> overrides;
  std::string calibration;  ///< a file `ctwin calibrate --nccl` wrote; empty for the defaults
  std::string routing;      ///< --routing where the command takes it (routing_option.hpp); empty: the file's
};

void add_fabric_options(CLI::App& command, FabricOptions& options);

/// A data file named on the command line: as given if it exists, else relative to the
/// source tree ctwin was built from, so bundled topologies work from any directory.
using api::resolve_data_path;

/// The build the options name, for the evaluation API.
[[nodiscard]] api::Build build_of(const FabricOptions& options);

[[nodiscard]] fabric::Fabric build_fabric(const FabricOptions& options);

/// The calibration named by --calibration, or none.
[[nodiscard]] std::optional<calibration::NcclCalibration> load_calibration(const FabricOptions& options);

}  // namespace ctwin::cli
