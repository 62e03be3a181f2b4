#pragma once
// The JSON of every result the evaluation API returns (docs/architecture.md, "Stable interfaces"). The CLI's
// `--format json` and Python's `to_dict()` both print these, so they agree byte for byte.

#include <nlohmann/json.hpp>

#include "ctwin/analysis/scaling.hpp"
#include "ctwin/api/evaluate.hpp"
#include "ctwin/collectives/predict.hpp"
#include "ctwin/fabric/summary.hpp"
#include "ctwin/replay/replay.hpp"
#include "ctwin/replay/scenario.hpp"
#include "ctwin/replay/step_report.hpp"

namespace ctwin::api {

/// `ctwin run --format json`: the report fields, with the scenario's model, cluster, GPU and split.
[[nodiscard]] nlohmann::json step_report_json(const replay::Scenario& scenario, const replay::StepReport& report);

/// What a scenario was made of, so that a result file says what produced it: the model,
/// cluster and GPU profile as named (a file, a bundled name or "inline"; "cluster" for the
/// cluster's own GPU) and every change made to it ("parallel.tp=4"), in order.
[[nodiscard]] nlohmann::json scenario_inputs_json(const Scenario& scenario);

/// `ctwin run --format json` and Python's StepResult.to_dict(): the report with "inputs".
[[nodiscard]] nlohmann::json step_json(const Scenario& given, const StepResult& result);

/// Chrome trace format ("X" complete events, microseconds): one process per simulated rank, one
/// thread per stream; opens in chrome://tracing and ui.perfetto.dev.
[[nodiscard]] nlohmann::json chrome_trace_json(const replay::ReplayResult& replay);

/// `ctwin collective --format json`: {"op", "gpus", "channels", "rows": [...]}.
[[nodiscard]] nlohmann::json collective_json(const collectives::CollectiveResult& result);

/// `ctwin fabric --format json`.
[[nodiscard]] nlohmann::json fabric_summary_json(const fabric::FabricSummary& summary);

/// `ctwin fabric --format json`'s "storage" (builds whose topology has one): per tier its kind,
/// attachment, servers and rates in GB/s, and for shared tiers the read rate the build's `nodes`
/// can draw, min(aggregate, nodes × node path) (docs/io.md).
[[nodiscard]] nlohmann::json storage_json(const fabric::ClusterSpec& spec, long long nodes);

/// Every size of `study`: its GPUs and batch, and either why it cannot run or its prediction.
[[nodiscard]] nlohmann::json scaling_points_json(const analysis::ScalingStudy& study);

/// `ctwin scale --format json`: {"model", "scaling": "strong"|"weak", "batch": policy, "points"}
/// (a point's "batch_note" says how its global batch was derived when it is not the scenario's).
[[nodiscard]] nlohmann::json scaling_json(const analysis::ScalingStudy& study);

/// `ctwin traffic --format json`; `wall_s` (this machine's run time, not a result) only with `timing`.
[[nodiscard]] nlohmann::json traffic_json(const TrafficSummary& summary, bool timing = false);

}  // namespace ctwin::api
