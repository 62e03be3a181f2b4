// ctwin._core.Scenario and ctwin._core.EvalContext: values passed back into every call.

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <utility>
#include <vector>

#include "ctwin/api/eval_context.hpp"
#include "ctwin/api/scenario.hpp"
#include "ctwin/core/json_reader.hpp"
#include "ctwin/core/json_text.hpp"
#include "registry.hpp"

namespace py = pybind11;

namespace ctwin::python {

void register_scenario(py::module_& m) {
  py::class_<api::Scenario>(m, "Scenario")
      .def_static("load", &api::Scenario::load, py::arg("path"))
      .def_static(
          "from_json_text",
          [](const std::string& text, const std::string& source) { return api::Scenario::from_json_text(text, source); },
          py::arg("text"), py::arg("source"))
      .def(
          "with_",
          [](const api::Scenario& s, std::string path, const std::string& value_json) {
            return s.with(std::move(path), parse_json_text(value_json, s.source()));
          },
          py::arg("path"), py::arg("value_json"))
      .def("with_assignments", &api::Scenario::with_assignments, py::arg("assignments"))
      .def(
          "with_calibration",
          [](const api::Scenario& s, const std::string& file) { return api::with_calibration(s, file, "calibration"); },
          py::arg("file"))
      .def("validate", [](const api::Scenario& s) { (void)s.resolve(); })
      .def("document_json", [](const api::Scenario& s) { return json_text(s.document()); })
      .def("changes", [](const api::Scenario& s) {
        std::vector<std::pair<std::string, std::string>> out;
        for (const auto& change : s.changes()) out.emplace_back(change.path, json_text(change.value));
        return out;
      })
      .def_property_readonly("source", &api::Scenario::source);

  py::class_<api::EvalContext, std::shared_ptr<api::EvalContext>>(m, "EvalContext")
      .def(py::init<>())
      .def("counts", [](const api::EvalContext& c) {
        const auto counts = c.counts();
        py::dict out;
        out["fabrics_built"] = counts.fabrics_built;
        out["fabric_reuses"] = counts.fabric_reuses;
        out["collective_caches"] = counts.collective_caches;
        return out;
      });
}

}  // namespace ctwin::python
