#include "ctwin/api/evaluate.hpp"

#include <algorithm>
#include <chrono>
#include <utility>

#include "ctwin/api/build_warnings.hpp"
#include "ctwin/api/data_dir.hpp"
#include "ctwin/api/degraded_build.hpp"
#include "ctwin/api/gpu_profile.hpp"
#include "ctwin/api/step_degradation.hpp"
#include "ctwin/calibration/calibration_bundle.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/core/input_file.hpp"
#include "ctwin/core/json_reader.hpp"
#include "ctwin/core/json_text.hpp"
#include "ctwin/core/limits.hpp"
#include "ctwin/fabric/degradation.hpp"
#include "ctwin/network/flow_model.hpp"
#include "ctwin/replay/node_pool.hpp"

namespace ctwin::api {
namespace {

replay::StepOptions step_options(const replay::Scenario& scenario, EvalContext& context, const StepQuery& query) {
  replay::StepOptions options;
  options.comm = query.comm;
  options.all_ranks = query.all_ranks;
  options.repeat_lists = query.report_only;
  options.flow_sample = query.flow_sample;
  options.collective_cache = context.collectives(scenario.cluster_key, scenario.network);
  const bool shared = query.comm == replay::CommModel::kShared ||
                      (query.comm == replay::CommModel::kAuto && scenario.network == network::ModelKind::kFlow);
  // The build holds every GPU the placement puts a rank on (idle ones of a domain-aligned job too).
  if (shared) {
    options.fabric = context.fabric(scenario.cluster_key + replay::pool_build_key(scenario), replay::pool_build(scenario),
                                    replay::place_ranks(scenario).cluster_gpus());
  }
  return options;
}

// What identifies a build in the context's caches: its topology after changes, and the calibration applied.
std::string build_key(const nlohmann::json& document, const Build& build) {
  return json_text(document) + "\ncalibration:" + build.calibration;
}

nlohmann::json build_document(const Build& build) {
  nlohmann::json document = load_json_file(resolve_named(build.cluster, DataKind::kTopology));
  apply_changes(document, build.changes, build.changes_origin);
  return document;
}

// The topology read from its document, with the calibration applied.
fabric::ClusterSpec spec_of(const nlohmann::json& document, const Build& build) {
  fabric::ClusterSpec spec =
      fabric::parse_cluster(document, input_source_name(resolve_named(build.cluster, DataKind::kTopology)));
  if (const auto calibrated = build_calibration(build)) spec = calibrated->apply(std::move(spec));
  return attach_gpu_arch(std::move(spec));
}

std::shared_ptr<const fabric::Fabric> built(const Build& build, EvalContext& context) {
  const nlohmann::json document = build_document(build);
  return context.fabric(build_key(document, build), spec_of(document, build), build.gpus);
}

}  // namespace

replay::CommModel parse_comm_model(const std::string& text, const std::string& origin) {
  if (text == "auto") return replay::CommModel::kAuto;
  if (text == "isolated") return replay::CommModel::kIsolated;
  if (text == "shared") return replay::CommModel::kShared;
  throw InputError(origin, "", "unknown communication model '" + text + "' (expected auto, isolated or shared)");
}

std::string_view comm_model_name(replay::CommModel comm) {
  switch (comm) {
    case replay::CommModel::kAuto: return "auto";
    case replay::CommModel::kIsolated: return "isolated";
    case replay::CommModel::kShared: return "shared";
  }
  return "auto";
}

StepResult evaluate(const Scenario& scenario, EvalContext& context, const StepQuery& query) {
  StepResult result{scenario.resolve(&context.profiles()), {}};
  replay::StepOptions options = step_options(result.scenario, context, query);
  apply_step_degradation(result.scenario, query.degrade, query.degrade_origin, options);
  result.step = replay::simulate_step(result.scenario, options);
  if (query.flow_sample != replay::FlowSample::kFull && !result.step.shared_fabric) {
    throw InputError(query.flow_sample_origin, "",
                     "samples the shared flow fabric; this step ran each collective alone "
                     "(analytical network or isolated communication)");
  }
  return result;
}

replay::SimulatedStep evaluate_resolved(const replay::Scenario& scenario, EvalContext& context,
                                        const StepQuery& query) {
  replay::StepOptions options = step_options(scenario, context, query);
  apply_step_degradation(scenario, query.degrade, query.degrade_origin, options);
  return replay::simulate_step(scenario, options);
}

analysis::ScalingStudy evaluate_scaling(const Scenario& scenario, EvalContext& context, const ScalingOptions& options) {
  analysis::ScalingQuery query;
  query.gpus = options.gpus;
  query.batch = options.batch;
  query.jobs = options.jobs;
  query.progress = options.progress;
  query.load = [&scenario, &context](const std::vector<std::string>& size_overrides) {
    return scenario.with_assignments(size_overrides).resolve(&context.profiles());
  };
  query.simulate = [&context, &options](const replay::Scenario& sized) {
    return replay::simulate_step(sized, step_options(sized, context, options.step)).report;
  };
  query.warnings = [](const replay::Scenario& sized) { return step_warnings(sized); };
  return analysis::run_scaling(query);
}

std::shared_ptr<const fabric::Fabric> build_fabric(const Build& build, EvalContext& context) { return built(build, context); }

fabric::Fabric degraded_fabric(const Build& build, const std::vector<std::string>& degrade, const std::string& origin) {
  fabric::Fabric degraded(load_build(build), limits::gpu_count(build.gpus));
  for (const auto& term : degrade) fabric::apply_degradation(degraded, fabric::parse_degradation(term, origin, degraded));
  return degraded;
}

collectives::CollectiveResult evaluate_degraded_collective(const Build& build, const std::vector<std::string>& degrade,
                                                           const std::string& origin, collectives::CollectiveQuery query,
                                                           EvalContext& context) {
  if (degrade.empty()) return evaluate_collective(build, std::move(query), context);
  if (const auto calibrated = build_calibration(build)) {
    const int channels = query.tuning.channels;
    query.tuning = calibrated->tuning;
    query.tuning.channels = channels;
  }
  return collectives::predict_collective(degraded_fabric(build, degrade, origin), query);
}

fabric::ClusterSpec load_build(const Build& build) { return spec_of(build_document(build), build); }

std::optional<calibration::NcclCalibration> build_calibration(const Build& build) {
  if (build.calibration.empty()) return std::nullopt;
  // A bundle's GPU part says nothing about a build's links and collectives.
  return calibration::read_calibration_bundle(resolve_data_path(build.calibration)).nccl;
}

fabric::FabricSummary evaluate_fabric(const Build& build, EvalContext& context) {
  return fabric::summarize(*built(build, context));
}

collectives::CollectiveResult evaluate_collective(const Build& build, collectives::CollectiveQuery query,
                                                  EvalContext& context) {
  if (const auto calibrated = build_calibration(build)) {
    const int channels = query.tuning.channels;
    query.tuning = calibrated->tuning;
    query.tuning.channels = channels;
  }
  return collectives::predict_collective(*built(build, context), query);
}

TrafficSummary evaluate_traffic(const Build& build, const TrafficQuery& query, EvalContext& context) {
  const auto fabric = built(build, context);
  const network::TrafficPattern pattern = network::make_pattern(query.pattern, *fabric, query.options);
  engine::Simulator simulator;
  auto model = query.full_solve && query.network == network::ModelKind::kFlow
                   ? std::make_unique<network::FlowModel>(*fabric, simulator, network::FlowModelOptions{false})
                   : network::make_network_model(query.network, *fabric, simulator);
  const auto wall_start = std::chrono::steady_clock::now();
  const network::TrafficResult result = network::run_pattern(*model, pattern);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();

  TrafficSummary summary;
  summary.pattern = pattern.name;
  summary.network = std::string(model->name());
  summary.gpus = fabric->gpus();
  summary.cluster = fabric->spec().name;
  summary.transfers = static_cast<std::int64_t>(pattern.transfers.size());
  summary.size = query.options.size;
  summary.bytes_delivered = result.stats.bytes_delivered;
  summary.makespan = result.makespan;
  std::vector<SimTime> sorted = result.completed_at;
  std::sort(sorted.begin(), sorted.end());
  const auto percentile = [&](double p) {
    return sorted.empty() ? SimTime() : sorted[static_cast<std::size_t>(p * static_cast<double>(sorted.size() - 1))];
  };
  summary.first_completion = percentile(0);
  summary.median_completion = percentile(0.5);
  summary.last_completion = percentile(1);
  const double seconds = result.makespan.seconds();
  summary.aggregate_GBps = seconds > 0 ? static_cast<double>(result.stats.bytes_delivered.count()) / seconds * 1e-9 : 0;
  summary.events = result.events;
  if (const auto* flow = dynamic_cast<const network::FlowModel*>(model.get())) {
    summary.solves = flow->solves();
    summary.solved_flows = flow->solved_flows();
  }
  summary.wall_s = wall;
  return summary;
}

}  // namespace ctwin::api
