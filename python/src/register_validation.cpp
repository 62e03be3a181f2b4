// ctwin._core.validate_nccl: the twin against the measured nccl-tests logs of a manifest.

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "call.hpp"
#include "ctwin/api/nccl_validation.hpp"
#include "registry.hpp"

namespace py = pybind11;

namespace ctwin::python {

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
            [&] { return api::nccl_validation_json(api::validate_nccl(request), network, calibrated).dump(); });
      },
      py::arg("setups"), py::arg("role"), py::arg("only"), py::arg("network"), py::arg("calibrated"),
      "Predicted vs measured nccl-tests busbw as JSON (ctwin validate --format json).");
}

}  // namespace ctwin::python
