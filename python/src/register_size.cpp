// ctwin._core.size: build options of a cluster compared on cost, power and throughput.

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "call.hpp"
#include "ctwin/api/public_studies.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/core/json_reader.hpp"
#include "ctwin/core/json_text.hpp"
#include "registry.hpp"
#include "report_object.hpp"

namespace py = pybind11;

namespace ctwin::python {

namespace {

/// ctwin size's flags, as Python gives them; read, and refused with the keyword's name, when the
/// call runs.
struct SizeOptions {
  std::string cluster;
  std::int64_t gpus = 0;
  std::vector<std::pair<std::string, std::string>> changes;  ///< (dotted path, JSON value)
  std::vector<std::string> vary;
  std::vector<std::string> workloads;
  std::string parts;
  int scales = 4;
  bool collectives = true;
  int jobs = 1;
  std::string network = "flow";
  std::string flow_sample = "su";
  std::optional<double> tie_tolerance;
  std::optional<int> ecmp_seeds;
  int servers_per_rack = 0;
  int racks_per_row = 16;
  std::optional<double> pue;
};

api::SizeQuery size_query(const SizeOptions& o) {
  api::SizeQuery query;
  query.cluster = o.cluster;
  query.gpus = o.gpus;
  for (const auto& [path, value] : o.changes) query.changes.push_back({path, parse_json_text(value, "changes")});
  for (const auto& text : o.vary) query.vary.push_back(api::parse_grid_axis(text, "vary"));
  query.workloads = o.workloads;
  query.parts = o.parts;
  query.scales = o.scales;
  query.collectives = o.collectives;
  query.network = network::parse_model_kind(o.network, "network", "");
  query.flow_sample = replay::parse_flow_sample(o.flow_sample, "flow_sample");
  query.tie_tolerance = o.tie_tolerance;
  query.ecmp_seeds = o.ecmp_seeds;
  query.floor.servers_per_rack = o.servers_per_rack;
  query.floor.racks_per_row = o.racks_per_row;
  query.pue = o.pue;
  if (o.jobs < 1 || o.jobs > 1024) throw InputError("jobs", "", "must be 1 to 1024");
  query.jobs = static_cast<unsigned>(o.jobs);
  return query;
}

}  // namespace

void register_size(py::module_& m) {
  py::class_<SizeOptions>(m, "SizeOptions", "A build's options to compare (ctwin size's flags).")
      .def(py::init<>())
      .def_readwrite("cluster", &SizeOptions::cluster)
      .def_readwrite("gpus", &SizeOptions::gpus)
      .def_readwrite("changes", &SizeOptions::changes, "(dotted path, JSON value) pairs, on every option.")
      .def_readwrite("vary", &SizeOptions::vary, "\"field=v1,v2,...\" texts.")
      .def_readwrite("workloads", &SizeOptions::workloads, "Scenario files run on each option.")
      .def_readwrite("parts", &SizeOptions::parts)
      .def_readwrite("scales", &SizeOptions::scales)
      .def_readwrite("collectives", &SizeOptions::collectives)
      .def_readwrite("jobs", &SizeOptions::jobs)
      .def_readwrite("servers_per_rack", &SizeOptions::servers_per_rack, "0: 4, or 1 for rack-scale nodes.")
      .def_readwrite("racks_per_row", &SizeOptions::racks_per_row)
      .def_readwrite("pue", &SizeOptions::pue, "Facility energy over IT energy, or None.")
      .def_readwrite("network", &SizeOptions::network)
      .def_readwrite("flow_sample", &SizeOptions::flow_sample)
      .def_readwrite("tie_tolerance", &SizeOptions::tie_tolerance)
      .def_readwrite("ecmp_seeds", &SizeOptions::ecmp_seeds);

  m.def(
      "size",
      [](const SizeOptions& options, api::EvalContext& context) {
        const api::SizeQuery query = size_query(options);
        return call_interruptibly([&] { return SizeReport(api::size_json(api::evaluate_size(query, context))); });
      },
      py::arg("options"), py::arg("context"), "Build options compared: a SizeReport (ctwin size).");
}

}  // namespace ctwin::python
