// ctwin._core.explain: the waterfall of a chain of scenario changes (docs/explain.md).

#include <pybind11/pybind11.h>

#include <string>

#include "call.hpp"
#include "ctwin/api/public_studies.hpp"
#include "ctwin/core/json_text.hpp"
#include "registry.hpp"
#include "report_object.hpp"

namespace py = pybind11;

namespace ctwin::python {

void register_explain(py::module_& m) {
  py::class_<api::ExplainQuery>(m, "ExplainOptions", "How a chain is explained (ctwin explain's flags).")
      .def(py::init<>())
      .def_readwrite("reverse", &api::ExplainQuery::reverse, "Also apply the factors last to first.");

  m.def(
      "explain",
      [](const std::string& chain, const api::ExplainQuery& options, api::EvalContext& context) {
        const api::ExplainChain loaded = api::load_explain_chain(chain);
        return call_interruptibly(
            [&] { return ExplainReport(api::explain_json(api::evaluate_explain(loaded, context, options))); });
      },
      py::arg("chain"), py::arg("options"), py::arg("context"), "A chain's waterfall: an ExplainReport (ctwin explain).");
}

}  // namespace ctwin::python
