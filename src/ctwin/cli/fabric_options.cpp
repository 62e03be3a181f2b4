#include "ctwin/cli/fabric_options.hpp"

#include <CLI/CLI.hpp>

#include "ctwin/fabric/cluster_spec.hpp"

namespace ctwin::cli {

void add_fabric_options(CLI::App& command, FabricOptions& options) {
  command.add_option("--cluster", options.cluster, "topology file, e.g. topologies/dgx-h100-superpod.json")->required();
  command.add_option("--gpus", options.gpus, "GPUs in the build: the first N, nodes filled in order")->required();
  command.add_option("--set", options.overrides, "override a topology field, e.g. fabric.oversubscription.leaf=2")
      ->take_all();
}

std::filesystem::path resolve_data_path(const std::string& path) {
  const std::filesystem::path given(path);
  if (given.is_absolute() || std::filesystem::exists(given)) return given;
  const std::filesystem::path bundled = std::filesystem::path(CTWIN_DATA_DIR) / given;
  return std::filesystem::exists(bundled) ? bundled : given;
}

fabric::Fabric build_fabric(const FabricOptions& options) {
  return fabric::Fabric(fabric::load_cluster(resolve_data_path(options.cluster), options.overrides), options.gpus);
}

}  // namespace ctwin::cli
