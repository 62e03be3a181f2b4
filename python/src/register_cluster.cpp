// ctwin._core.cluster: several jobs on one build, replayed together on one flow simulation.

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <utility>

#include "call.hpp"
#include "ctwin/core/json_reader.hpp"
#include "ctwin/core/json_text.hpp"
#include "ctwin/api/public_studies.hpp"
#include "registry.hpp"
#include "report_object.hpp"

namespace py = pybind11;

namespace ctwin::python {
namespace {

/// ctwin cluster's flags.
struct ClusterOptions {
  int steps = 0;  ///< the window in steps; 0: the file's
  bool compare_policies = false;
};

ClusterReport cluster_report(api::ClusterQuery query, const ClusterOptions& options, api::EvalContext& context) {
  if (options.steps != 0) query.steps = options.steps;
  return call_interruptibly([&] {
    if (options.compare_policies) return ClusterReport(api::cluster_policies_json(api::compare_cluster_policies(query, context)));
    return ClusterReport(api::cluster_json(api::evaluate_cluster(query, context)));
  });
}

}  // namespace

void register_cluster(py::module_& m) {
  py::class_<ClusterOptions>(m, "ClusterOptions", "How a JOBS file is replayed (ctwin cluster's flags).")
      .def(py::init<>())
      .def_readwrite("steps", &ClusterOptions::steps, "The window in steps; 0: the file's.")
      .def_readwrite("compare_policies", &ClusterOptions::compare_policies, "Every placement policy side by side.");

  m.def(
      "cluster_file",
      [](const std::string& path, const ClusterOptions& options, api::EvalContext& context) {
        return cluster_report(api::cluster_query_from_file(path), options, context);
      },
      py::arg("path"), py::arg("options"), py::arg("context"),
      "ctwin cluster JOBS [--compare-policies] --format json, as a ClusterReport.");
  m.def(
      "cluster_document",
      [](const std::string& text, const std::string& source, const ClusterOptions& options, api::EvalContext& context) {
        api::ClusterQuery query;
        query.document = parse_json_text(text, source);
        query.source = source;
        query.dir = ".";
        return cluster_report(std::move(query), options, context);
      },
      py::arg("text"), py::arg("source"), py::arg("options"), py::arg("context"),
      "The same for a JOBS document given as JSON text (paths inside it relative to the working directory).");
}

}  // namespace ctwin::python
