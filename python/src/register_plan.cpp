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
  m.def(
      "plan",
      [](const api::Scenario& scenario, api::EvalContext& context, std::int64_t gpus, const std::string& objective,
         const std::vector<std::string>& fixes, std::size_t flow_top, int jobs, std::size_t top,
         std::size_t shard_index, std::size_t shard_count, const std::string& flow_sample,
         const std::string& memory_margin) {
        api::PlanOptions options;
        options.memory_margin = api::parse_memory_margin(memory_margin, "memory_margin");
        if (gpus != 0) options.gpus = gpus;
        options.objective = api::parse_plan_objective(objective);
        options.fixes = fixes;
        options.flow_top = flow_top;
        options.flow_sample = replay::parse_flow_sample(flow_sample, "flow_sample");
        options.jobs = jobs_arg(jobs);
        check_shard(shard_index, shard_count);
        if (top < 1) throw InputError("top", "", "must be at least 1");
        options.shard_index = shard_index;
        options.shard_count = shard_count;
        options.top = top;  // the best `top` exact, the rest ranked out by their bound (shards replay all)
        return call_interruptibly([&] {
          const api::PlanResult result = api::evaluate_plan(scenario, context, options);
          return json_text(api::plan_json(result, shard_count > 1 ? 0 : top), 2);
        });
      },
      py::arg("scenario"), py::arg("context"), py::arg("gpus"), py::arg("objective"), py::arg("fixes"),
      py::arg("flow_top"), py::arg("jobs"), py::arg("top"), py::arg("shard_index"), py::arg("shard_count"),
      py::arg("flow_sample") = "full", py::arg("memory_margin") = "10%",
      "A plan's JSON (ctwin plan --format json), or with shard_count > 1 one shard's (ctwin plan --shard).");

  m.def(
      "merge_plans",
      [](const std::vector<std::string>& shards, std::size_t top) {
        if (top < 1) throw InputError("top", "", "must be at least 1");
        std::vector<std::string> names;
        const auto parsed = parse_all(shards, names);
        return call_interruptibly([&] { return json_text(api::plan_json(api::merge_plans(parsed, names), top), 2); });
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
            [&] { return json_text(api::sweep_json(api::evaluate_sweep(scenario, axes, context, options)), 2); });
      },
      py::arg("scenario"), py::arg("context"), py::arg("grid"), py::arg("jobs"), py::arg("shard_index"),
      py::arg("shard_count"), "A sweep's JSON (ctwin sweep --format json), or one shard's.");

  m.def(
      "merge_sweeps",
      [](const std::vector<std::string>& shards) {
        std::vector<std::string> names;
        const auto parsed = parse_all(shards, names);
        return call_interruptibly([&] { return json_text(api::sweep_json(api::merge_sweeps(parsed, names)), 2); });
      },
      py::arg("shards"), "ctwin sweep --merge: the shards' JSON texts joined, as JSON.");
}

}  // namespace ctwin::python
