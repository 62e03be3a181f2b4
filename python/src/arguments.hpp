#pragma once
// Keyword arguments several registrations read the same way.

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "ctwin/api/evaluate.hpp"
#include "ctwin/api/public_network.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/core/json_reader.hpp"

namespace ctwin::python {

using Changes = std::vector<std::pair<std::string, std::string>>;  // (dotted path, JSON value)

/// The build the build-taking calls name: a topology, its GPU count, changes to it (their JSON
/// values parsed against the topology's name) and a calibration.
inline api::Build build_of(const std::string& cluster, std::int64_t gpus, const Changes& changes,
                           const std::string& calibration) {
  api::Build build;
  build.cluster = cluster;
  build.gpus = gpus;
  build.changes_origin = cluster;
  for (const auto& [path, value] : changes) build.changes.push_back({path, parse_json_text(value, cluster)});
  build.calibration = calibration;
  return build;
}

/// The build fields of an options class that names one (CollectiveOptions, AcceptOptions), as
/// Python gives them; build_of reads them when the call runs.
struct BuildFields {
  std::string cluster;
  std::int64_t gpus = 0;
  Changes changes;  ///< (dotted path, JSON value)
  std::string calibration;
};

inline api::Build build_of(const BuildFields& fields) {
  return build_of(fields.cluster, fields.gpus, fields.changes, fields.calibration);
}

/// The build fields as attributes of an options class that has them.
template <class Options>
pybind11::class_<Options>& def_build_fields(pybind11::class_<Options>& options) {
  return options.def_readwrite("cluster", &Options::cluster)
      .def_readwrite("gpus", &Options::gpus)
      .def_readwrite("changes", &Options::changes, "(dotted path, JSON value) pairs.")
      .def_readwrite("calibration", &Options::calibration);
}

/// The network a training step runs on: analytical or flow; InputError naming `network` otherwise.
inline network::ModelKind step_network_arg(const std::string& network) {
  const network::ModelKind kind = network::parse_model_kind(network, "network", "");
  if (kind != network::ModelKind::kAnalytical && kind != network::ModelKind::kFlow) {
    throw InputError("network", "", "a training step runs on analytical or flow, not '" + network + "'");
  }
  return kind;
}

}  // namespace ctwin::python
