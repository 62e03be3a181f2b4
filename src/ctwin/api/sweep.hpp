#pragma once
// Every point of a grid of scenario fields (`ctwin sweep --grid parallel.tp=1,2,4,8 --grid
// cluster.server.nics.bandwidth=400Gbps,800Gbps`): one step per point, through one EvalContext,
// in parallel, in grid order (the first axis varies slowest) whatever the thread count.
//
// A value that cannot stand even alone on the base scenario (an unknown field, a bandwidth
// without its unit, tp 3 for 32 heads) is the user's mistake: InputError naming the axis. A
// point whose values are each fine alone but not together (a global batch the combination's dp
// does not divide) is a fact about the grid: the point is kept, marked invalid with the reason.

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ctwin/api/evaluate.hpp"

namespace ctwin::api {

struct GridAxis {
  std::string path;                    ///< dotted scenario field: "parallel.tp"
  std::vector<std::string> texts;      ///< the values as given
  std::vector<nlohmann::json> values;  ///< parsed as --set parses them (4 stays a number, "400Gbps" a string)
};

/// "parallel.tp=1,2,4,8"; InputError naming `origin` when malformed.
[[nodiscard]] GridAxis parse_grid_axis(const std::string& text, const std::string& origin = "--grid");

struct SweepPoint {
  std::vector<std::string> values;  ///< one per axis, as given
  std::string invalid;              ///< why the combination cannot run; empty when it ran
  replay::StepReport report;
};

struct SweepResult {
  std::string model;
  std::vector<GridAxis> axes;
  std::vector<SweepPoint> points;
};

struct SweepOptions {
  unsigned jobs = 1;
  /// Called, one call at a time, as each point finishes: points done, points in all.
  std::function<void(std::size_t, std::size_t)> progress;
};

[[nodiscard]] SweepResult evaluate_sweep(const Scenario& base, const std::vector<GridAxis>& axes, EvalContext& context,
                                         const SweepOptions& options = {});

/// {"model", "axes": [{"field", "values"}], "points": [{<field>: value, ..., run report fields or "invalid"}]}.
[[nodiscard]] nlohmann::json sweep_json(const SweepResult& result);

}  // namespace ctwin::api
