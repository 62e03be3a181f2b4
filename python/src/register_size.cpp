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

void register_size(py::module_& m) {
  m.def(
      "size",
      [](const std::string& cluster, std::int64_t gpus, const std::vector<std::pair<std::string, std::string>>& changes,
         const std::vector<std::string>& vary, const std::vector<std::string>& workloads, const std::string& parts,
         int scales, bool collectives, int jobs, const std::string& network, const std::string& flow_sample,
         std::optional<double> tie_tolerance, std::optional<int> ecmp_seeds, api::EvalContext& context) {
        api::SizeQuery query;
        query.cluster = cluster;
        query.gpus = gpus;
        for (const auto& [path, value] : changes) query.changes.push_back({path, parse_json_text(value, "changes")});
        for (const auto& text : vary) query.vary.push_back(api::parse_grid_axis(text, "vary"));
        query.workloads = workloads;
        query.parts = parts;
        query.scales = scales;
        query.collectives = collectives;
        query.network = network::parse_model_kind(network, "network", "");
        query.flow_sample = replay::parse_flow_sample(flow_sample, "flow_sample");
        query.tie_tolerance = tie_tolerance;
        query.ecmp_seeds = ecmp_seeds;
        if (jobs < 1 || jobs > 1024) throw InputError("jobs", "", "must be 1 to 1024");
        query.jobs = static_cast<unsigned>(jobs);
        return call_interruptibly([&] { return SizeReport(api::size_json(api::evaluate_size(query, context))); });
      },
      py::arg("cluster"), py::arg("gpus"), py::arg("changes"), py::arg("vary"), py::arg("workloads"), py::arg("parts"),
      py::arg("scales"), py::arg("collectives"), py::arg("jobs"), py::arg("network"), py::arg("flow_sample"),
      py::arg("tie_tolerance"), py::arg("ecmp_seeds"), py::arg("context"));
}

}  // namespace ctwin::python
