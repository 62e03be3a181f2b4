#pragma once
// Every point of a grid of scenario fields (`ctwin sweep --grid parallel.tp=1,2,4,8 --grid
// cluster.server.nics.bandwidth=400Gbps,800Gbps`): one step per point, through one EvalContext,
// in parallel, in grid order (the first axis varies slowest) whatever the thread count.
//
// A value that cannot stand even alone on the base scenario (an unknown field, a bandwidth
// without its unit, tp 3 for 32 heads) is the user's mistake: InputError naming the axis. A
// point whose values are each fine alone but not together (a global batch the combination's dp
// does not divide) is a fact about the grid: the point is kept, marked invalid with the reason.
//
// Shards (api/shard.hpp): shard i of N runs the points whose grid index is i-1 modulo N and
// writes them with their index; merge_sweeps puts the N files' points back in grid order, which
// gives the bytes one machine would have printed.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ctwin/api/evaluate.hpp"
#include "ctwin/fabric/build_checks.hpp"
#include "ctwin/replay/step_figures.hpp"

namespace ctwin::api {

struct GridAxis {
  std::string path;                    ///< dotted scenario field: "parallel.tp"
  std::vector<std::string> texts;      ///< the values as given
  std::vector<nlohmann::json> values;  ///< parsed as --set parses them (4 stays a number, "400Gbps" a string)
};

/// "parallel.tp=1,2,4,8"; InputError naming `origin` when malformed.
[[nodiscard]] GridAxis parse_grid_axis(const std::string& text, const std::string& origin = "--grid");

/// The run report's figures a sweep prints for each point.
inline constexpr replay::FigureSet kSweepFigures{
    replay::Figure::kDp,          replay::Figure::kMicroBatches, replay::Figure::kStepTime,
    replay::Figure::kTokensPerS,  replay::Figure::kModelTflopsPerGpu, replay::Figure::kMfu,
    replay::Figure::kCommRatio,   replay::Figure::kExposedComm,  replay::Figure::kBubble,
    replay::Figure::kMemoryTotal, replay::Figure::kFitsMemory};

struct SweepPoint {
  std::size_t index = 0;            ///< in the whole grid (nested-loop order)
  std::vector<std::string> values;  ///< one per axis, as given
  std::string invalid;              ///< why the combination cannot run; empty when it ran
  replay::StepFigures figures;  ///< those a sweep prints (kSweepFigures): what a merge reads back from the shards' JSON
  /// The point's build and split warnings, as `ctwin run` prints them (800G NICs behind a Gen5 x16
  /// slot run at the slot's rate: a sweep over NIC speeds must say so at the points it concerns).
  std::vector<fabric::BuildWarning> warnings;
  replay::StepReport report;  ///< the whole report of a point run here; a merged point has its figures only
};

struct SweepResult {
  std::string model;
  std::vector<GridAxis> axes;
  std::vector<SweepPoint> points;  ///< a shard's own points only
  std::size_t grid_points = 0;     ///< in the whole grid
  std::size_t shard_index = 0, shard_count = 1;
  std::string scenario_fingerprint;  ///< of the base scenario with its changes (shards carry it)
};

struct SweepOptions {
  unsigned jobs = 1;
  /// Called, one call at a time, as each point finishes: points done, points in all.
  std::function<void(std::size_t, std::size_t)> progress;
  std::size_t shard_index = 0;  ///< 0-based
  std::size_t shard_count = 1;
};

[[nodiscard]] SweepResult evaluate_sweep(const Scenario& base, const std::vector<GridAxis>& axes, EvalContext& context,
                                         const SweepOptions& options = {});

/// {"model", "axes": [{"field", "values"}], "points": [{<field>: value, ..., run report fields or "invalid",
/// "warnings": [{"check", "message", "fix"}] (empty when none)}]};
/// a shard adds "shard": {"index", "count"}, "grid_points", "scenario" (the fingerprint) and each point's "index".
[[nodiscard]] nlohmann::json sweep_json(const SweepResult& result);

/// The one-machine result from the N shards' sweep_json outputs (`sources` name them in errors):
/// the same sweep (model, axes, scenario), every shard once.
[[nodiscard]] SweepResult merge_sweeps(const std::vector<nlohmann::json>& shards, const std::vector<std::string>& sources);

}  // namespace ctwin::api
