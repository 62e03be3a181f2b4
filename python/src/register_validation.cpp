// ctwin._core.validate_nccl, .validate_training(_calibrated) and .validate_scaling: the twin against measured
// nccl-tests logs, published training runs and published scaling runs.

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "call.hpp"
#include "ctwin/api/public_validation.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/core/json_text.hpp"
#include "arguments.hpp"
#include "registry.hpp"

namespace py = pybind11;

namespace ctwin::python {
namespace {

// The arguments of `validate --training`, named as Python names them in errors.
api::TrainingValidationRequest training_request(const std::string& cases, const std::vector<std::string>& only,
                                                const std::string& network, const std::string& profiles,
                                                unsigned jobs) {
  api::TrainingValidationRequest request;
  request.cases = cases;
  request.only = only;
  request.network = step_network_arg(network);
  request.profiles = profiles;
  request.jobs = jobs == 0 ? 1 : jobs;
  request.only_field = "only";
  request.profiles_field = "profiles";
  return request;
}

}  // namespace

void register_validation(py::module_& m) {
  m.def(
      "validate_nccl",
      [](const std::string& setups, const std::string& role, const std::vector<std::string>& only,
         const std::string& network, bool calibrated) {
        api::NcclValidationRequest request;
        request.setups = setups;
        request.role = role;
        request.only = only;
        request.network = network::parse_model_kind(network, "network", "");
        request.calibrated = calibrated;
        request.role_field = "role";
        request.only_field = "only";
        return call_interruptibly(
            [&] { return json_text(api::nccl_validation_json(api::validate_nccl(request), network, calibrated)); });
      },
      py::arg("setups"), py::arg("role"), py::arg("only"), py::arg("network"), py::arg("calibrated"),
      "Predicted vs measured nccl-tests busbw as JSON (ctwin validate --format json).");

  m.def(
      "validate_training",
      [](const std::string& cases, const std::vector<std::string>& only, const std::string& network,
         const std::string& profiles, unsigned jobs) {
        const auto request = training_request(cases, only, network, profiles, jobs);
        return call_interruptibly(
            [&] { return json_text(api::training_validation_json(api::validate_training(request), network)); });
      },
      py::arg("cases"), py::arg("only"), py::arg("network"), py::arg("profiles"), py::arg("jobs"),
      "Published training runs against the twin as JSON (ctwin validate --training --format json).");

  m.def(
      "validate_training_calibrated",
      [](const std::string& cases, const std::vector<std::string>& only, const std::string& network,
         const std::string& profiles, unsigned jobs) {
        const auto request = training_request(cases, only, network, profiles, jobs);
        return call_interruptibly([&] {
          const auto validation = api::load_training_validation(request);
          return json_text(api::training_cross_validation_json(api::cross_validate_training(validation, request), network));
        });
      },
      py::arg("cases"), py::arg("only"), py::arg("network"), py::arg("profiles"), py::arg("jobs"),
      "Published training runs predicted with a cross-validated training_time_scale as JSON "
      "(ctwin validate --training --calibrated --format json).");

  m.def(
      "validate_scaling",
      [](const std::string& cases, const std::string& network) {
        return call_interruptibly([&] {
          return json_text(api::scaling_validation_json(api::validate_scaling({cases, step_network_arg(network), {}})));
        });
      },
      py::arg("cases"), py::arg("network"),
      "Published scaling runs against the twin as JSON (ctwin validate --scaling --format json).");

  m.def(
      "validate_trace",
      [](const std::string& trace, const api::Scenario& scenario, api::EvalContext& context) {
        return call_interruptibly(
            [&] { return json_text(api::trace_validation_json(api::validate_trace(trace, scenario, context))); });
      },
      py::arg("trace"), py::arg("scenario"), py::arg("context"),
      "A profiler trace against the twin's step of the scenario, per kernel class and phase, as JSON "
      "(ctwin validate --trace FILE --scenario S --format json).");
}

}  // namespace ctwin::python
