// ctwin._core.cluster: several jobs on one build, replayed together on one flow simulation.

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>

#include "call.hpp"
#include "ctwin/core/json_reader.hpp"
#include "ctwin/core/json_text.hpp"
#include "ctwin/studies/cluster_json.hpp"
#include "registry.hpp"

namespace py = pybind11;

namespace ctwin::python {

void register_cluster(py::module_& m) {
  m.def(
      "cluster_file",
      [](const std::string& path, int steps, api::EvalContext& context) {
        api::ClusterQuery query = api::cluster_query_from_file(path);
        if (steps != 0) query.steps = steps;
        // Indented as the CLI prints it, so that the text is the command's bytes.
        return call_interruptibly([&] { return json_text(api::cluster_json(api::evaluate_cluster(query, context)), 2); });
      },
      py::arg("path"), py::arg("steps"), py::arg("context"), "ctwin cluster JOBS --format json's text.");
  m.def(
      "cluster_document",
      [](const std::string& text, const std::string& source, int steps, api::EvalContext& context) {
        api::ClusterQuery query;
        query.document = parse_json_text(text, source);
        query.source = source;
        query.dir = ".";
        if (steps != 0) query.steps = steps;
        return call_interruptibly([&] { return json_text(api::cluster_json(api::evaluate_cluster(query, context)), 2); });
      },
      py::arg("text"), py::arg("source"), py::arg("steps"), py::arg("context"),
      "The same for a JOBS document given as JSON text (paths inside it relative to the working directory).");
}

}  // namespace ctwin::python
