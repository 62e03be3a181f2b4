#pragma once
// One register_<concept> function per file (boost-histogram's layout), called by core_module.cpp.

#include <pybind11/pybind11.h>

namespace ctwin::python {

void register_reports(pybind11::module_& m);
void register_scenario(pybind11::module_& m);
void register_step(pybind11::module_& m);
void register_build(pybind11::module_& m);
void register_calibration(pybind11::module_& m);
void register_layer(pybind11::module_& m);
void register_validation(pybind11::module_& m);
void register_acceptance(pybind11::module_& m);
void register_size(pybind11::module_& m);
void register_explain(pybind11::module_& m);
void register_plan(pybind11::module_& m);
void register_goodput(pybind11::module_& m);
void register_rank(pybind11::module_& m);
void register_cluster(pybind11::module_& m);

}  // namespace ctwin::python
