// ctwin._core.cluster: several jobs on one build, replayed together on one flow simulation.

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>

#include "call.hpp"
#include "ctwin/core/json_reader.hpp"
#include "ctwin/core/json_text.hpp"
#include "ctwin/api/public_studies.hpp"
#include "registry.hpp"
#include "report_object.hpp"

namespace py = pybind11;

namespace ctwin::python {
namespace {

ClusterReport cluster_report(const api::ClusterQuery& query, bool compare_policies, api::EvalContext& context) {
  if (compare_policies) return ClusterReport(api::cluster_policies_json(api::compare_cluster_policies(query, context)));
  return ClusterReport(api::cluster_json(api::evaluate_cluster(query, context)));
}

}  // namespace

void register_cluster(py::module_& m) {
  m.def(
      "cluster_file",
      [](const std::string& path, int steps, bool compare_policies, api::EvalContext& context) {
        api::ClusterQuery query = api::cluster_query_from_file(path);
        if (steps != 0) query.steps = steps;
        return call_interruptibly([&] { return cluster_report(query, compare_policies, context); });
      },
      py::arg("path"), py::arg("steps"), py::arg("compare_policies"), py::arg("context"),
      "ctwin cluster JOBS [--compare-policies] --format json's text.");
  m.def(
      "cluster_document",
      [](const std::string& text, const std::string& source, int steps, bool compare_policies, api::EvalContext& context) {
        api::ClusterQuery query;
        query.document = parse_json_text(text, source);
        query.source = source;
        query.dir = ".";
        if (steps != 0) query.steps = steps;
        return call_interruptibly([&] { return cluster_report(query, compare_policies, context); });
      },
      py::arg("text"), py::arg("source"), py::arg("steps"), py::arg("compare_policies"), py::arg("context"),
      "The same for a JOBS document given as JSON text (paths inside it relative to the working directory).");
}

}  // namespace ctwin::python
