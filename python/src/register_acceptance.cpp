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

void register_acceptance(py::module_& m) {
  m.def(
      "accept",
      [](const std::string& cluster, std::int64_t gpus, const std::vector<std::pair<std::string, std::string>>& changes,
         const std::string& calibration, const std::string& plan_path, const std::string& measured,
         const std::vector<std::string>& degraded, bool synthesize, double noise, std::uint64_t seed, unsigned jobs,
         const std::string& show, api::EvalContext& context) {
        const api::ReportDetail detail = api::parse_report_detail(show, "show");
        if (!(noise >= 0 && noise <= 0.5)) throw InputError("noise", "", "a share in [0, 0.5]");
        if (jobs < 1 || jobs > 1024) throw InputError("jobs", "", "between 1 and 1024");
        if (!measured.empty() && synthesize) throw InputError("measured", "", "give a folder or degraded parts, not both");
        const api::Build build = build_of(cluster, gpus, changes, calibration);
        return call_interruptibly([&] {
          const api::AcceptancePlan plan = api::load_acceptance_plan(api::resolve_named(plan_path, DataKind::kAcceptancePlan, "plan").string());
          const api::AcceptanceExpectation expectation = api::evaluate_acceptance(build, plan, context, {jobs, {}});
          if (measured.empty() && !synthesize) {
            return std::pair(AcceptReport(api::acceptance_json(expectation)), api::acceptance_markdown(expectation, nullptr));
          }
          const api::MeasuredSet set =
              synthesize ? api::synthesize_measured(build, plan, expectation, degraded, noise, seed, context)
                         : api::read_measured(measured, plan, *api::build_fabric(build, context));
          const api::AcceptanceCheck check = api::check_acceptance(build, plan, expectation, set, context);
          return std::pair(AcceptReport(api::acceptance_json(check)), api::acceptance_markdown(expectation, &check, {}, detail));
        });
      },
      py::arg("cluster"), py::arg("gpus"), py::arg("changes"), py::arg("calibration"), py::arg("plan"), py::arg("measured"),
      py::arg("degraded"), py::arg("synthesize"), py::arg("noise"), py::arg("seed"), py::arg("jobs"), py::arg("show"), py::arg("context"));
}

}  // namespace ctwin::python
