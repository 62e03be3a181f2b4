// ctwin._core.accept: an acceptance plan's expectations on a build, and a check of what was
// measured (read from a folder, or synthesized from the build with degraded parts).

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <utility>
#include <vector>

#include "arguments.hpp"
#include "call.hpp"
#include "ctwin/api/public_acceptance.hpp"
#include "ctwin/api/data_dir.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/core/json_reader.hpp"
#include "ctwin/core/json_text.hpp"
#include "registry.hpp"
#include "report_object.hpp"

namespace py = pybind11;

namespace ctwin::python {

namespace {

/// ctwin accept's flags, as Python gives them; read when the call runs.
struct AcceptOptions : BuildFields {
  std::string plan = "scenarios/acceptance/default.json";
  std::string measured;               ///< a folder; empty: none
  std::vector<std::string> degraded;  ///< with synthesize: the parts degraded (none: the healthy build)
  bool synthesize = false;
  double noise = 0;
  std::uint64_t seed = 1;
  unsigned jobs = 1;
  std::string show = "failures";
};

}  // namespace

void register_acceptance(py::module_& m) {
  py::class_<AcceptOptions> options(m, "AcceptOptions",
                                    "A build, an acceptance plan and what was measured (ctwin accept's flags).");
  def_build_fields(options.def(py::init<>()))
      .def_readwrite("plan", &AcceptOptions::plan)
      .def_readwrite("measured", &AcceptOptions::measured, "A folder of measurements; \"\": none.")
      .def_readwrite("degraded", &AcceptOptions::degraded)
      .def_readwrite("synthesize", &AcceptOptions::synthesize, "Measurements synthesized with `degraded` parts.")
      .def_readwrite("noise", &AcceptOptions::noise)
      .def_readwrite("seed", &AcceptOptions::seed)
      .def_readwrite("jobs", &AcceptOptions::jobs)
      .def_readwrite("show", &AcceptOptions::show, "summary, failures or all.");

  m.def(
      "accept",
      [](const AcceptOptions& o, api::EvalContext& context) {
        const api::ReportDetail detail = api::parse_report_detail(o.show, "show");
        if (!(o.noise >= 0 && o.noise <= 0.5)) throw InputError("noise", "", "a share in [0, 0.5]");
        if (o.jobs < 1 || o.jobs > 1024) throw InputError("jobs", "", "between 1 and 1024");
        if (!o.measured.empty() && o.synthesize) throw InputError("measured", "", "give a folder or degraded parts, not both");
        const api::Build build = build_of(o);
        return call_interruptibly([&] {
          const api::AcceptancePlan plan = api::load_acceptance_plan(api::resolve_named(o.plan, DataKind::kAcceptancePlan, "plan").string());
          const api::AcceptanceExpectation expectation = api::evaluate_acceptance(build, plan, context, {o.jobs, {}});
          if (o.measured.empty() && !o.synthesize) {
            return std::pair(AcceptReport(api::acceptance_json(expectation)), api::acceptance_markdown(expectation, nullptr));
          }
          const api::MeasuredSet set =
              o.synthesize ? api::synthesize_measured(build, plan, expectation, o.degraded, o.noise, o.seed, context)
                           : api::read_measured(o.measured, plan, *api::build_fabric(build, context));
          const api::AcceptanceCheck check = api::check_acceptance(build, plan, expectation, set, context);
          return std::pair(AcceptReport(api::acceptance_json(check)), api::acceptance_markdown(expectation, &check, {}, detail));
        });
      },
      py::arg("options"), py::arg("context"),
      "Acceptance expectations, or their check: (AcceptReport, Markdown page) (ctwin accept).");
}

}  // namespace ctwin::python
