#include "ctwin/cli/fabric_options.hpp"

#include <CLI/CLI.hpp>

#include "ctwin/calibration/nccl_calibration_file.hpp"
#include "ctwin/fabric/cluster_spec.hpp"

namespace ctwin::cli {

void add_fabric_options(CLI::App& command, FabricOptions& options) {
  command.add_option("--cluster", options.cluster, "topology file, e.g. topologies/dgx-h100-superpod.json")->required();
  command.add_option("--gpus", options.gpus, "GPUs in the build: the first N, nodes filled in order")->required();
  command.add_option("--set", options.overrides, "override a topology field, e.g. fabric.oversubscription.leaf=2")
      ->take_all();
  command.add_option("--calibration", options.calibration,
                     "calibration file from `ctwin calibrate --nccl`: fitted link efficiencies and protocol costs");
}

std::filesystem::path resolve_data_path(const std::string& path) {
  const std::filesystem::path given(path);
  if (given.is_absolute() || std::filesystem::exists(given)) return given;
  const std::filesystem::path bundled = std::filesystem::path(CTWIN_DATA_DIR) / given;
  return std::filesystem::exists(bundled) ? bundled : given;
}

std::optional<calibration::NcclCalibration> load_calibration(const FabricOptions& options) {
  if (options.calibration.empty()) return std::nullopt;
  return calibration::read_nccl_calibration(resolve_data_path(options.calibration));
}

fabric::Fabric build_fabric(const FabricOptions& options) {
  fabric::ClusterSpec spec = fabric::load_cluster(resolve_data_path(options.cluster), options.overrides);
  if (const auto calibrated = load_calibration(options)) spec = calibrated->apply(std::move(spec));
  return fabric::Fabric(std::move(spec), options.gpus);
}

}  // namespace ctwin::cli
