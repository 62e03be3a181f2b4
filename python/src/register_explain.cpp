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
  m.def(
      "explain",
      [](const std::string& chain, bool reverse, api::EvalContext& context) {
        const api::ExplainChain loaded = api::load_explain_chain(chain);
        api::ExplainQuery query;
        query.reverse = reverse;
        return call_interruptibly([&] { return ExplainReport(api::explain_json(api::evaluate_explain(loaded, context, query))); });
      },
      py::arg("chain"), py::arg("reverse"), py::arg("context"));
}

}  // namespace ctwin::python
