// ctwin._core: the compiled half of the ctwin package. Results cross as native objects holding
// the library's own report document (api/report_json.hpp, report_object.hpp), so Python's
// to_dict() and the CLI's --format json are one serialization; the package (python/ctwin) wraps
// them in its result classes and DataFrames.

#include <pybind11/pybind11.h>

#include "ctwin/core/error.hpp"
#include "ctwin/core/interrupt.hpp"
#include "registry.hpp"

namespace py = pybind11;

namespace {

// A message may quote a file name that is not UTF-8 (legal on Linux); py::str of it would raise
// UnicodeDecodeError inside the translator instead of the InputError, so bytes it cannot read
// become U+FFFD, as in ctwin's reports (core/json_text.hpp).
py::str readable(const std::string& text) {
  return py::reinterpret_steal<py::str>(PyUnicode_DecodeUTF8(text.data(), static_cast<Py_ssize_t>(text.size()), "replace"));
}

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "ctwin's compiled core; use the ctwin package instead.";
  // InputError becomes ctwin.errors.InputError (a ValueError with file and field), defined in
  // Python so that it can be caught and subclassed like any exception.
  py::register_exception_translator([](std::exception_ptr thrown) {
    try {
      if (thrown) std::rethrow_exception(thrown);
    } catch (const ctwin::InputError& e) {
      const py::object type = py::module_::import("ctwin.errors").attr("InputError");
      const py::object error = type(readable(e.what()), readable(e.source()), readable(e.pointer()));
      PyErr_SetObject(type.ptr(), error.ptr());
    } catch (const ctwin::Interrupted&) {
      PyErr_SetNone(PyExc_KeyboardInterrupt);
    }
  });
  ctwin::python::register_reports(m);  // first: the functions below return its classes
  ctwin::python::register_scenario(m);
  ctwin::python::register_step(m);
  ctwin::python::register_build(m);
  ctwin::python::register_calibration(m);
  ctwin::python::register_layer(m);
  ctwin::python::register_validation(m);
  ctwin::python::register_acceptance(m);
  ctwin::python::register_size(m);
  ctwin::python::register_explain(m);
  ctwin::python::register_plan(m);
  ctwin::python::register_goodput(m);
  ctwin::python::register_rank(m);
  ctwin::python::register_cluster(m);
}
