// ctwin._core.goodput: failures, checkpoints, restarts, spares and stragglers over a training run.

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "call.hpp"
#include "ctwin/api/public_studies.hpp"
#include "ctwin/core/json_text.hpp"
#include "registry.hpp"

namespace py = pybind11;

namespace ctwin::python {

void register_goodput(py::module_& m) {
  m.def(
      "goodput",
      [](const api::Scenario& scenario, double days, const std::string& interval,
         const std::string& spares, const std::string& cold_spares, const std::string& hot_swap, const std::string& cold_swap,
         const std::string& on_empty, const std::string& reliability, const std::string& storage, bool fp32_master,
         const std::string& step_time, const std::string& straggler_rate, double straggler_speed,
         const std::string& straggler_duration, int runs, std::uint64_t seed, const std::string& storage_file,
         api::EvalContext& context) {
        api::GoodputQuery q;
        q.scenario = scenario;
        q.days = days;
        q.interval = interval;
        q.spares = spares;
        q.cold_spares = cold_spares;
        q.hot_swap = hot_swap;
        q.cold_swap = cold_swap;
        q.on_empty = on_empty;
        if (!reliability.empty()) q.reliability = reliability;
        q.storage = storage;
        if (!storage_file.empty()) q.storage_file = storage_file;
        q.fp32_master = fp32_master;
        q.step_time = step_time;
        q.straggler_rate = straggler_rate;
        q.straggler_speed = straggler_speed;
        q.straggler_duration = straggler_duration;
        q.runs = runs;
        q.seed = seed;
        // Indented as the CLI prints it, so that the text is the command's bytes.
        return call_interruptibly([&] { return json_text(api::goodput_json(api::evaluate_goodput(q, context)), 2); });
      },
      py::arg("scenario"), py::arg("days"), py::arg("interval"), py::arg("spares"),
      py::arg("cold_spares"), py::arg("hot_swap"), py::arg("cold_swap"), py::arg("on_empty"), py::arg("reliability"),
      py::arg("storage"), py::arg("fp32_master"), py::arg("step_time"), py::arg("straggler_rate"),
      py::arg("straggler_speed"), py::arg("straggler_duration"), py::arg("runs"), py::arg("seed"), py::arg("storage_file"), py::arg("context"),
      "A goodput study: the JSON of ctwin goodput --format json.");
}

}  // namespace ctwin::python
