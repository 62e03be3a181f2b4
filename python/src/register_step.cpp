// ctwin._core.run and ctwin._core.scale: a training step and a scaling study.

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <utility>
#include <vector>

#include "call.hpp"
#include "ctwin/api/evaluate.hpp"
#include "ctwin/api/report_json.hpp"
#include "ctwin/core/json_text.hpp"
#include "ctwin/api/public_replay.hpp"
#include "registry.hpp"
#include "report_object.hpp"

namespace py = pybind11;

namespace ctwin::python {

void register_step(py::module_& m) {
  m.def(
      "run",
      [](const api::Scenario& scenario, api::EvalContext& context, const std::string& comm, bool all_ranks, bool trace,
         const std::vector<std::string>& degrade, const std::string& flow_sample) {
        api::StepQuery query{api::parse_comm_model(comm, "comm"), all_ranks, degrade, "degrade"};
        query.flow_sample = replay::parse_flow_sample(flow_sample, "flow_sample");
        query.flow_sample_origin = "flow_sample";
        return call_interruptibly([&] {
          const api::StepResult result = api::evaluate(scenario, context, query);
          std::pair<StepReport, std::string> out{StepReport(api::step_json(scenario, result)), ""};
          if (trace) out.second = json_text(api::chrome_trace_json(result.step.replay));
          return out;
        });
      },
      py::arg("scenario"), py::arg("context"), py::arg("comm"), py::arg("all_ranks"), py::arg("trace"),
      py::arg("degrade") = std::vector<std::string>{}, py::arg("flow_sample") = "full", "One training step: (report JSON, Chrome trace JSON or '').");

  m.def(
      "scale",
      [](const api::Scenario& scenario, api::EvalContext& context, std::vector<std::int64_t> gpus,
         const std::string& batch, unsigned jobs) {
        api::ScalingOptions options;
        options.gpus = std::move(gpus);
        options.batch = analysis::parse_batch_policy(batch, "batch");
        options.jobs = jobs;
        return call_interruptibly(
            [&] { return ScalingReport(api::scaling_json(api::evaluate_scaling(scenario, context, options))); });
      },
      py::arg("scenario"), py::arg("context"), py::arg("gpus"), py::arg("batch"), py::arg("jobs"),
      "A scaling study as JSON.");
}

}  // namespace ctwin::python
