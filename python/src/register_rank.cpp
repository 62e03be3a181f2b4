// ctwin._core.rank_split: where one named split ranks in a plan (plan/plan_rank.hpp), as the
// library's JSON text; the package's ctwin.rank_split (python/ctwin/rank.py) wraps it.

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "call.hpp"
#include "ctwin/api/public_plan.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/core/json_text.hpp"
#include "registry.hpp"

namespace py = pybind11;

namespace ctwin::python {

void register_rank(py::module_& m) {
  m.def(
      "rank_split",
      [](const api::Scenario& scenario, api::EvalContext& context, std::int64_t gpus, const std::string& objective,
         const std::vector<std::string>& fixes, const std::vector<std::string>& key, int jobs,
         const std::string& memory_margin) {
        if (jobs < 1 || jobs > 1024) throw InputError("jobs", "", "must be 1 to 1024, got " + std::to_string(jobs));
        api::RankOptions options;
        if (gpus != 0) options.gpus = gpus;
        options.objective = api::parse_plan_objective(objective);
        options.fixes = fixes;
        options.key = key;
        options.memory_margin = api::parse_memory_margin(memory_margin, "memory_margin");
        options.jobs = static_cast<unsigned>(jobs);
        return call_interruptibly(
            [&] { return json_text(api::split_rank_json(api::rank_split(scenario, context, options)), 2); });
      },
      py::arg("scenario"), py::arg("context"), py::arg("gpus"), py::arg("objective"), py::arg("fixes"), py::arg("key"),
      py::arg("jobs"), py::arg("memory_margin") = "10%", "One split's rank in a plan, as JSON (ctwin plan --rank-of --format json).");
}

}  // namespace ctwin::python
