// ctwin._core.goodput: failures, checkpoints, restarts, spares and stragglers over a training run.
// Its options are one GoodputOptions object (the library's GoodputQuery without the scenario),
// not a list of positional arguments.

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>

#include "call.hpp"
#include "ctwin/api/public_studies.hpp"
#include "registry.hpp"
#include "report_object.hpp"

namespace py = pybind11;

namespace ctwin::python {

void register_goodput(py::module_& m) {
  // The fields keep the library's defaults and texts ("30min", "5%"); they are read, and refused
  // with the field's name, when the study runs.
  py::class_<api::GoodputQuery>(m, "GoodputOptions", "The options of a goodput study (ctwin goodput's flags).")
      .def(py::init<>())
      .def_readwrite("days", &api::GoodputQuery::days, "Length of each simulated run, days.")
      .def_readwrite("interval", &api::GoodputQuery::interval, "--checkpoint-interval: \"30min\" or \"auto\".")
      .def_readwrite("spares", &api::GoodputQuery::spares, "--spares: \"16\", \"5%\" or \"2/su\".")
      .def_readwrite("cold_spares", &api::GoodputQuery::cold_spares)
      .def_readwrite("hot_swap", &api::GoodputQuery::hot_swap)
      .def_readwrite("cold_swap", &api::GoodputQuery::cold_swap)
      .def_readwrite("on_empty", &api::GoodputQuery::on_empty, "wait or shrink.")
      .def_readwrite("reliability", &api::GoodputQuery::reliability, "The reliability model's file.")
      .def_readwrite("storage_file", &api::GoodputQuery::storage_file, "The checkpoint storage tiers' file.")
      .def_readwrite("storage", &api::GoodputQuery::storage)
      .def_readwrite("fp32_master", &api::GoodputQuery::fp32_master)
      .def_readwrite("step_time", &api::GoodputQuery::step_time, "\"8.5s\" instead of the simulated step; \"\": simulated.")
      .def_readwrite("straggler_rate", &api::GoodputQuery::straggler_rate)
      .def_readwrite("straggler_speed", &api::GoodputQuery::straggler_speed)
      .def_readwrite("straggler_duration", &api::GoodputQuery::straggler_duration)
      .def_readwrite("runs", &api::GoodputQuery::runs)
      .def_readwrite("seed", &api::GoodputQuery::seed);

  m.def(
      "goodput",
      [](const api::Scenario& scenario, api::GoodputQuery options, api::EvalContext& context) {
        options.scenario = scenario;
        return call_interruptibly([&] { return GoodputReport(api::goodput_json(api::evaluate_goodput(options, context))); });
      },
      py::arg("scenario"), py::arg("options"), py::arg("context"), "A goodput study: a GoodputReport (ctwin goodput).");
}

}  // namespace ctwin::python
