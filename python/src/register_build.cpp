// ctwin._core.fabric, .collective and .traffic: questions about a build of a topology.

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <utility>
#include <vector>

#include "arguments.hpp"
#include "call.hpp"
#include "ctwin/api/build_warnings.hpp"
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

Bytes size_arg(const std::string& name, const std::string& text) {
  try {
    return parse_nccl_size(text);
  } catch (const UnitError& e) {
    throw InputError(name, "", e.what());
  }
}

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

  m.def(
      "collective",
      [](const std::string& cluster, std::int64_t gpus, const Changes& changes, const std::string& calibration,
         const std::string& op, const std::string& algorithm, const std::string& protocol, const std::string& begin,
         const std::string& end, double factor, const std::string& dtype, const std::string& network, int channels,
         bool every_transfer, const std::vector<std::string>& degrade, api::EvalContext& context) {
        const api::Build build = build_of(cluster, gpus, changes, calibration);
        collectives::CollectiveQuery query;
        query.op = collectives::parse_op(op, "op");
        query.algorithm = collectives::parse_algorithm(algorithm, "algorithm");
        query.protocol = collectives::parse_protocol(protocol, "protocol");
        query.sizes = collectives::size_sweep(size_arg("begin", begin), size_arg("end", end), factor);
        query.element_bytes = calibration::nccl_type_bytes(dtype, "dtype");
        query.network = network::parse_model_kind(network, "network", "");
        query.every_transfer = every_transfer;
        if (channels < 0 || channels > 64) {
          throw InputError("channels", "", "must be between 0 (one per rail) and 64 (NCCL's most), got " +
                                               std::to_string(channels));
        }
        query.tuning.channels = channels;
        return call_interruptibly([&] {
          return CollectiveReport(api::collective_json(api::evaluate_degraded_collective(build, degrade, "degrade", query, context)));
        });
      },
      py::arg("cluster"), py::arg("gpus"), py::arg("changes"), py::arg("calibration"), py::arg("op"),
      py::arg("algorithm"), py::arg("protocol"), py::arg("begin"), py::arg("end"), py::arg("factor"), py::arg("dtype"),
      py::arg("network"), py::arg("channels"), py::arg("every_transfer"), py::arg("degrade"), py::arg("context"));

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
