// ctwin._core.fabric, .collective and .traffic: questions about a build of a topology.

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <utility>
#include <vector>

#include "arguments.hpp"
#include "call.hpp"
#include "ctwin/api/build_warnings.hpp"
#include "ctwin/api/collective_flags.hpp"
#include "ctwin/api/degraded_build.hpp"
#include "ctwin/api/evaluate.hpp"
#include "ctwin/api/report_json.hpp"
#include "ctwin/api/public_calibration.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/core/json_reader.hpp"
#include "ctwin/core/json_text.hpp"
#include "ctwin/core/unit_parse.hpp"
#include "registry.hpp"
#include "report_object.hpp"

namespace py = pybind11;

namespace ctwin::python {
namespace {

Bytes bytes_arg(const std::string& name, const std::string& text) {
  try {
    const Bytes size = parse_bytes(text);
    if (size < Bytes(0)) throw UnitError("must not be negative");
    return size;
  } catch (const UnitError& e) {
    throw InputError(name, "", e.what());
  }
}

/// ctwin collective's flags, as Python gives them (the sweep's are the library's, shared with the
/// command); read when the call runs.
struct CollectiveOptions : BuildFields, api::CollectiveFlags {
  std::vector<std::string> degrade;
};

}  // namespace

void register_build(py::module_& m) {
  m.def(
      "fabric",
      [](const std::string& cluster, std::int64_t gpus, const Changes& changes, const std::string& calibration,
         api::EvalContext& context) {
        const api::Build build = build_of(cluster, gpus, changes, calibration);
        return call_interruptibly([&] { return json_text(api::fabric_report_json(build, context)); });
      },
      py::arg("cluster"), py::arg("gpus"), py::arg("changes"), py::arg("calibration"), py::arg("context"));

  py::class_<CollectiveOptions> collective(m, "CollectiveOptions",
                                           "A build and the collective to predict on it (ctwin collective's flags).");
  def_build_fields(collective.def(py::init<>()))
      .def_readwrite("op", &CollectiveOptions::op)
      .def_readwrite("algorithm", &CollectiveOptions::algorithm)
      .def_readwrite("protocol", &CollectiveOptions::protocol)
      .def_readwrite("begin", &CollectiveOptions::begin, "The smallest size, as nccl-tests' -b reads it.")
      .def_readwrite("end", &CollectiveOptions::end)
      .def_readwrite("factor", &CollectiveOptions::factor)
      .def_readwrite("dtype", &CollectiveOptions::dtype)
      .def_readwrite("network", &CollectiveOptions::network)
      .def_readwrite("channels", &CollectiveOptions::channels, "0: one per rail.")
      .def_readwrite("every_transfer", &CollectiveOptions::every_transfer)
      .def_readwrite("degrade", &CollectiveOptions::degrade);

  m.def(
      "collective",
      [](const CollectiveOptions& o, api::EvalContext& context) {
        const api::Build build = build_of(o);
        const collectives::CollectiveQuery query = api::collective_query(o, api::kCollectivePythonKeywords);
        return call_interruptibly([&] {
          return CollectiveReport(
              api::collective_json(api::evaluate_degraded_collective(build, o.degrade, "degrade", query, context)));
        });
      },
      py::arg("options"), py::arg("context"), "A collective sweep: a CollectiveReport (ctwin collective).");

  m.def(
      "traffic",
      [](const std::string& cluster, std::int64_t gpus, const Changes& changes, const std::string& pattern,
         const std::string& size, bool pxn, int steps, int flows_per_pair, const std::string& network, bool full_solve,
         const std::string& calibration, api::EvalContext& context) {
        const api::Build build = build_of(cluster, gpus, changes, calibration);
        api::TrafficQuery query;
        query.pattern = pattern;
        query.options = {bytes_arg("size", size), pxn, steps, flows_per_pair};
        query.network = network::parse_model_kind(network, "network", "");
        query.full_solve = full_solve;
        return call_interruptibly([&] { return json_text(api::traffic_json(api::evaluate_traffic(build, query, context))); });
      },
      py::arg("cluster"), py::arg("gpus"), py::arg("changes"), py::arg("pattern"), py::arg("size"), py::arg("pxn"),
      py::arg("steps"), py::arg("flows_per_pair"), py::arg("network"), py::arg("full_solve"),
      py::arg("calibration"), py::arg("context"));
}

}  // namespace ctwin::python
