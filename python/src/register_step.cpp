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
#include "ctwin/api/public_analysis.hpp"
#include "ctwin/api/public_replay.hpp"
#include "ctwin/core/error.hpp"
#include "registry.hpp"
#include "report_object.hpp"

namespace py = pybind11;

namespace ctwin::python {

void register_step(py::module_& m) {
  // The library's queries; the texts Python gives are parsed as they are set, so a bad one is an
  // InputError naming its keyword, and errors found later name Python's keywords too.
  py::class_<api::StepQuery>(m, "StepOptions", "How a training step is simulated (ctwin run's flags).")
      .def(py::init([] {
        api::StepQuery query;
        query.degrade_origin = "degrade";
        query.flow_sample_origin = "flow_sample";
        return query;
      }))
      .def_property(
          "comm", [](const api::StepQuery& q) { return std::string(api::comm_model_name(q.comm)); },
          [](api::StepQuery& q, const std::string& text) { q.comm = api::parse_comm_model(text, "comm"); },
          "auto, isolated or shared.")
      .def_readwrite("all_ranks", &api::StepQuery::all_ranks, "Every rank simulated (slow).")
      .def_readwrite("degrade", &api::StepQuery::degrade, "Degraded parts, as ctwin run --degrade reads them.")
      .def_property(
          "flow_sample", [](const api::StepQuery& q) { return replay::flow_sample_name(q.flow_sample); },
          [](api::StepQuery& q, const std::string& text) { q.flow_sample = replay::parse_flow_sample(text, "flow_sample"); },
          "full, su or replica.");

  py::class_<api::ScalingOptions>(m, "ScaleOptions", "The sizes of a scaling study (ctwin scale's flags).")
      .def(py::init<>())
      .def_readwrite("gpus", &api::ScalingOptions::gpus, "GPU counts, ascending.")
      .def_property(
          "batch", [](const api::ScalingOptions& o) { return std::string(analysis::batch_policy_name(o.batch)); },
          [](api::ScalingOptions& o, const std::string& text) { o.batch = analysis::parse_batch_policy(text, "batch"); },
          "nearest, fixed or per-replica.")
      .def_property(
          "jobs", [](const api::ScalingOptions& o) { return o.jobs; },
          [](api::ScalingOptions& o, int jobs) {
            if (jobs < 1 || jobs > 1024) throw InputError("jobs", "", "must be 1 to 1024, got " + std::to_string(jobs));
            o.jobs = static_cast<unsigned>(jobs);
          },
          "Sizes simulated at once.");

  m.def(
      "run",
      [](const api::Scenario& scenario, const api::StepQuery& options, api::EvalContext& context, bool trace) {
        return call_interruptibly([&] {
          const api::StepResult result = api::evaluate(scenario, context, options);
          std::pair<StepReport, std::string> out{StepReport(api::step_json(scenario, result)), ""};
          if (trace) out.second = json_text(api::chrome_trace_json(result.step.replay));
          return out;
        });
      },
      py::arg("scenario"), py::arg("options"), py::arg("context"), py::arg("trace") = false,
      "One training step: (StepReport, Chrome trace JSON or '').");

  m.def(
      "scale",
      [](const api::Scenario& scenario, const api::ScalingOptions& options, api::EvalContext& context) {
        return call_interruptibly(
            [&] { return ScalingReport(api::scaling_json(api::evaluate_scaling(scenario, context, options))); });
      },
      py::arg("scenario"), py::arg("options"), py::arg("context"), "A scaling study: a ScalingReport (ctwin scale).");
}

}  // namespace ctwin::python
