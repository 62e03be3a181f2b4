// ctwin._core.plan / sweep and their merges: a plan or sweep, whole or one shard, as the
// library's JSON text; the package (python/ctwin/plan.py) spreads shards over Dask workers.

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "call.hpp"
#include "ctwin/api/public_plan.hpp"
#include "ctwin/api/public_studies.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/core/json_reader.hpp"
#include "ctwin/core/json_text.hpp"
#include "ctwin/api/public_replay.hpp"
#include "registry.hpp"
#include "report_object.hpp"
#include "report_object.hpp"

namespace py = pybind11;

namespace ctwin::python {
namespace {

unsigned jobs_arg(int jobs) {
  if (jobs < 1 || jobs > 1024) throw InputError("jobs", "", "must be 1 to 1024, got " + std::to_string(jobs));
  return static_cast<unsigned>(jobs);
}

void check_shard(std::size_t index, std::size_t count) {
  if (count < 1 || index >= count) throw InputError("shard", "", "index must be below the shard count");
}

std::vector<nlohmann::json> parse_all(const std::vector<std::string>& texts, std::vector<std::string>& names) {
  std::vector<nlohmann::json> out;
  for (std::size_t i = 0; i < texts.size(); ++i) {
    names.push_back("shard " + std::to_string(i + 1));
    out.push_back(parse_json_text(texts[i], names.back()));
  }
  return out;
}

}  // namespace

void register_plan(py::module_& m) {
  // The planner's options as the library holds them; the texts Python gives are parsed as they
  // are set, so a bad one is an InputError naming its keyword.
  py::class_<api::PlanOptions>(m, "PlanOptions", "The options of a plan (ctwin plan's flags).")
      .def(py::init<>())
      .def_readwrite("gpus", &api::PlanOptions::gpus, "GPUs to plan for; None: the scenario's.")
      .def_property(
          "objective", [](const api::PlanOptions& o) { return api::plan_objective_name(o.objective); },
          [](api::PlanOptions& o, const std::string& text) { o.objective = api::parse_plan_objective(text); },
          "throughput or mfu.")
      .def_readwrite("fixes", &api::PlanOptions::fixes, "\"parallel.tp=8\": an axis narrowed, or a scenario field set.")
      .def_readwrite("flow_top", &api::PlanOptions::flow_top, "Candidates re-ranked on the flow fabric (0: none).")
      .def_readwrite("top", &api::PlanOptions::top, "Results kept, best first.")
      .def_readwrite("exhaustive", &api::PlanOptions::exhaustive, "Replay every candidate, whatever its bound.")
      .def_property(
          "flow_sample", [](const api::PlanOptions& o) { return replay::flow_sample_name(o.flow_sample); },
          [](api::PlanOptions& o, const std::string& text) { o.flow_sample = replay::parse_flow_sample(text, "flow_sample"); },
          "full, su or replica.")
      .def_property(
          "memory_margin", [](const api::PlanOptions& o) { return o.memory_margin; },
          [](api::PlanOptions& o, const std::string& text) { o.memory_margin = api::parse_memory_margin(text, "memory_margin"); },
          "Share of HBM kept free: set as text (\"10%\"), read as a share (0.1).")
      .def_property(
          "jobs", [](const api::PlanOptions& o) { return o.jobs; },
          [](api::PlanOptions& o, int jobs) { o.jobs = jobs_arg(jobs); }, "Candidates replayed at once.")
      .def_readwrite("shard_index", &api::PlanOptions::shard_index, "0-based.")
      .def_readwrite("shard_count", &api::PlanOptions::shard_count);

  m.def(
      "plan",
      [](const api::Scenario& scenario, const api::PlanOptions& options, api::EvalContext& context) {
        check_shard(options.shard_index, options.shard_count);
        if (options.top < 1) throw InputError("top", "", "must be at least 1");
        // The best `top` exact, the rest ranked out by their bound; a shard replays and lists all.
        const std::size_t shown = options.shard_count > 1 ? 0 : options.top;
        return call_interruptibly([&] { return PlanReport(api::plan_json(api::evaluate_plan(scenario, context, options), shown)); });
      },
      py::arg("scenario"), py::arg("options"), py::arg("context"),
      "A plan, a PlanReport (ctwin plan), or with options.shard_count > 1 one shard's (ctwin plan --shard).");

  m.def(
      "merge_plans",
      [](const std::vector<std::string>& shards, std::size_t top) {
        if (top < 1) throw InputError("top", "", "must be at least 1");
        std::vector<std::string> names;
        const auto parsed = parse_all(shards, names);
        return call_interruptibly([&] { return PlanReport(api::plan_json(api::merge_plans(parsed, names), top)); });
      },
      py::arg("shards"), py::arg("top"), "ctwin plan --merge: the shards' JSON texts joined, as JSON.");

  m.def(
      "sweep",
      [](const api::Scenario& scenario, api::EvalContext& context, const std::vector<std::string>& grid, int jobs,
         std::size_t shard_index, std::size_t shard_count) {
        std::vector<api::GridAxis> axes;
        for (const auto& text : grid) axes.push_back(api::parse_grid_axis(text, "grid"));
        api::SweepOptions options;
        options.jobs = jobs_arg(jobs);
        check_shard(shard_index, shard_count);
        options.shard_index = shard_index;
        options.shard_count = shard_count;
        return call_interruptibly(
            [&] { return SweepReport(api::sweep_json(api::evaluate_sweep(scenario, axes, context, options))); });
      },
      py::arg("scenario"), py::arg("context"), py::arg("grid"), py::arg("jobs"), py::arg("shard_index"),
      py::arg("shard_count"), "A sweep's JSON (ctwin sweep --format json), or one shard's.");

  m.def(
      "merge_sweeps",
      [](const std::vector<std::string>& shards) {
        std::vector<std::string> names;
        const auto parsed = parse_all(shards, names);
        return call_interruptibly([&] { return SweepReport(api::sweep_json(api::merge_sweeps(parsed, names))); });
      },
      py::arg("shards"), "ctwin sweep --merge: the shards' JSON texts joined, as JSON.");
}

}  // namespace ctwin::python
