#pragma once
// The one evaluation API every front end calls: the CLI, the Python module and the planner are
// thin callers of these functions, so they print the same numbers. Each takes its inputs as
// values and an EvalContext whose caches it may use; none prints or exits. Bad input is an
// InputError naming the file and field.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ctwin/analysis/scaling.hpp"
#include "ctwin/api/eval_context.hpp"
#include "ctwin/api/scenario.hpp"
#include "ctwin/calibration/nccl_fit.hpp"
#include "ctwin/collectives/predict.hpp"
#include "ctwin/core/overrides.hpp"
#include "ctwin/fabric/summary.hpp"
#include "ctwin/network/traffic_pattern.hpp"
#include "ctwin/replay/training_step.hpp"

namespace ctwin::api {

// ---- one training step -------------------------------------------------------------------

/// "auto", "isolated" or "shared" (replay::CommModel); InputError naming `origin` otherwise.
[[nodiscard]] replay::CommModel parse_comm_model(const std::string& text, const std::string& origin);
/// The name parse_comm_model reads.
[[nodiscard]] std::string_view comm_model_name(replay::CommModel comm);

struct StepQuery {
  replay::CommModel comm = replay::CommModel::kAuto;
  bool all_ranks = false;  ///< every rank simulated (checks the symmetry reduction; slow)
  std::vector<std::string> degrade;  ///< degraded parts, "gpu:RANK=SPEED", "nic:RANK=SHARE", ... (api/step_degradation.hpp)
  std::string degrade_origin = "--degrade";  ///< named by errors in them
  /// Only the report is wanted: repeated chunk passes are replayed by shifting the first
  /// (replay::StepOptions::repeat_lists), which leaves the report identical and is faster.
  bool report_only = false;
  /// On the shared fabric: every replica's traffic (kFull) or one scalable unit's per stage
  /// standing for the others (an approximation, replay/flow_sample.hpp).
  replay::FlowSample flow_sample = replay::FlowSample::kFull;
  /// Named by evaluate()'s error when a sample is asked of a step that runs no shared fabric.
  std::string flow_sample_origin = "--flow-sample";
};

struct StepResult {
  replay::Scenario scenario;  ///< as resolved: the model, cluster, GPU and split the step ran
  replay::SimulatedStep step;
};

/// One step of `scenario`. A flow sample other than kFull on a step whose collectives run alone
/// (analytical network or isolated communication) is an InputError naming query.flow_sample_origin.
[[nodiscard]] StepResult evaluate(const Scenario& scenario, EvalContext& context, const StepQuery& query = {});

/// One step of a scenario already resolved and checked (a planner's candidate: a resolved base
/// with another split); the same as evaluate() on the scenario that resolves to it.
[[nodiscard]] replay::SimulatedStep evaluate_resolved(const replay::Scenario& scenario, EvalContext& context,
                                                      const StepQuery& query = {});

// ---- scaling ---------------------------------------------------------------------------------

struct ScalingOptions {
  std::vector<std::int64_t> gpus;  ///< ascending
  analysis::BatchPolicy batch = analysis::BatchPolicy::kNearest;
  unsigned jobs = 1;
  std::function<void(std::size_t, std::size_t, std::int64_t)> progress;  ///< as analysis::ScalingQuery's
  StepQuery step;  ///< how each size's step is simulated
};

[[nodiscard]] analysis::ScalingStudy evaluate_scaling(const Scenario& scenario, EvalContext& context,
                                                      const ScalingOptions& options);

// ---- a build: fabric summary, collectives, traffic ---------------------------------------

/// The first `gpus` GPUs of a topology, with changes and optionally a calibration applied.
struct Build {
  std::string cluster;  ///< a topology file, tried under data_dir() too
  std::int64_t gpus = 0;
  std::vector<Override> changes;
  std::string changes_origin = "--set";  ///< named by errors in a change's path
  std::string calibration;               ///< a calibration `ctwin calibrate --nccl` or `--bundle` wrote; empty for none
};

/// The build's topology as read, changes and calibration applied.
[[nodiscard]] fabric::ClusterSpec load_build(const Build& build);
/// The calibration the build names, if any.
[[nodiscard]] std::optional<calibration::NcclCalibration> build_calibration(const Build& build);

[[nodiscard]] fabric::FabricSummary evaluate_fabric(const Build& build, EvalContext& context);

/// A collective sweep as nccl-tests would print it; the build's calibration, if any, sets the
/// query's tuning (its channel count kept).
[[nodiscard]] collectives::CollectiveResult evaluate_collective(const Build& build, collectives::CollectiveQuery query,
                                                                EvalContext& context);

struct TrafficQuery {
  std::string pattern = "alltoall";
  network::PatternOptions options;
  network::ModelKind network = network::ModelKind::kFlow;
  bool full_solve = false;  ///< flow: re-solve every flow at every change (checks the incremental solver)
};

struct TrafficSummary {
  std::string pattern;
  std::string network;
  std::int64_t gpus = 0;
  std::string cluster;  ///< the build's name
  std::int64_t transfers = 0;
  Bytes size;
  Bytes bytes_delivered;
  SimTime makespan;
  SimTime first_completion, median_completion, last_completion;
  double aggregate_GBps = 0;
  std::uint64_t events = 0;
  std::optional<std::uint64_t> solves, solved_flows;  ///< flow only
  double wall_s = 0;  ///< how long the simulation took here (not a result: differs run to run)
};

[[nodiscard]] TrafficSummary evaluate_traffic(const Build& build, const TrafficQuery& query, EvalContext& context);

}  // namespace ctwin::api
