// ctwin._core.layer: one transformer layer's kernel times, or the twin against measured layer times.

#include <pybind11/pybind11.h>

#include <string>

#include "call.hpp"
#include "ctwin/api/layer.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/core/json_text.hpp"
#include "registry.hpp"

namespace py = pybind11;

namespace ctwin::python {

void register_layer(py::module_& m) {
  m.def(
      "layer",
      [](const std::string& model, const std::string& gpu, std::int64_t tp, std::int64_t seq, std::int64_t micro_batch,
         const std::string& precision, const std::string& recompute, const std::string& attention, std::int64_t layer,
         const std::string& measured, const std::string& stack) {
        replay::LayerQuery query{model, gpu, seq, micro_batch, precision, recompute, attention, tp, layer, stack};
        if (!measured.empty() && !model.empty()) throw InputError("model", "", "with measured= the models come from the file");
        if (measured.empty() && model.empty()) throw InputError("model", "", "give a model (or measured=FILE)");
        return call_interruptibly([&] {
          if (!measured.empty()) return json_text(api::layer_comparison_json(api::compare_layers(query, measured)));
          return json_text(api::layer_json(replay::predict_layer(query, api::data_dir())));
        });
      },
      py::arg("model"), py::arg("gpu"), py::arg("tp"), py::arg("seq"), py::arg("micro_batch"), py::arg("precision"),
      py::arg("recompute"), py::arg("attention"), py::arg("layer"), py::arg("measured"), py::arg("stack"),
      "One layer's kernels as JSON (ctwin layer --format json), or with measured= the comparison.");
}

}  // namespace ctwin::python
