#include "ctwin/cli/fabric_options.hpp"

#include <CLI/CLI.hpp>

#include "ctwin/api/public_calibration.hpp"
#include "ctwin/api/public_fabric.hpp"
#include "ctwin/cli/routing_option.hpp"

namespace ctwin::cli {

void add_fabric_options(CLI::App& command, FabricOptions& options) {
  command.add_option("--cluster", options.cluster, "topology file, e.g. topologies/dgx-h100-superpod.json")->required();
  command.add_option("--gpus", options.gpus, "GPUs in the build: the first N, nodes filled in order")->required();
  command.add_option("--set", options.overrides, "override a topology field, e.g. fabric.oversubscription.leaf=2")
      ->take_all();
  command.add_option("--calibration", options.calibration,
                     "calibration file from `ctwin calibrate --nccl`: fitted link efficiencies and protocol costs");
}

api::Build build_of(const FabricOptions& options) {
  api::Build build;
  build.cluster = options.cluster;
  build.gpus = options.gpus;
  for (const auto& assignment : options.overrides) build.changes.push_back(parse_override(assignment));
  if (const std::string routing = routing_assignment(options.routing, "fabric."); !routing.empty()) {
    build.changes.push_back(parse_override(routing));
  }
  build.calibration = options.calibration;
  return build;
}

std::optional<calibration::NcclCalibration> load_calibration(const FabricOptions& options) {
  return api::build_calibration(build_of(options));
}

fabric::Fabric build_fabric(const FabricOptions& options) {
  return fabric::Fabric(api::load_build(build_of(options)), options.gpus);
}

}  // namespace ctwin::cli
