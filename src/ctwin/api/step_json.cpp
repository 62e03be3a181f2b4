#include "ctwin/api/report_json.hpp"

#include "ctwin/api/build_warnings.hpp"
#include "ctwin/api/error_band.hpp"
#include "ctwin/replay/node_pool.hpp"
#include "ctwin/replay/step_figures.hpp"

namespace ctwin::api {

namespace {

using replay::Figure;
// The run report's headline figures; its breakdown and memory are its own, in full.
constexpr replay::FigureSet kRunReportFigures{Figure::kStepTime,          Figure::kTokensPerS,
                                              Figure::kModelTflopsPerGpu, Figure::kHardwareTflopsPerGpu,
                                              Figure::kMfu,               Figure::kCommRatio,
                                              Figure::kFitsMemory};

nlohmann::json data_pipeline_json(const replay::DataPipelineSpec& spec, const replay::DataPipelineTiming& t) {
  const auto gbps = [](double bytes_per_s) { return bytes_per_s * 1e-9; };
  nlohmann::json out{{"tier", spec.tier},
                     {"reader_nodes", t.reader_nodes},
                     {"samples_per_node", t.samples_per_node},
                     {"bytes_per_node", t.bytes_per_node},
                     {"node_path_GBps", gbps(t.node_path_Bps)},
                     {"node_read_GBps", gbps(t.node_remote_Bps)},
                     {"cluster_read_GBps", gbps(t.cluster_read_Bps)},
                     {"cluster_read_cap_GBps", gbps(t.cluster_read_cap_Bps)},
                     {"read_s", t.read_s},
                     {"metadata_s", t.metadata_s},
                     {"preprocess_s", t.preprocess_s},
                     {"loader_s", t.loader_s},
                     {"prefetch", spec.prefetch},
                     {"exposed_io_s", t.exposed_s},
                     {"limit", t.limit}};
  if (!spec.cache_tier.empty()) out["cache"] = {{"tier", spec.cache_tier}, {"hit_rate", spec.cache_hit_rate}};
  if (t.fabric_read_s) out["fabric_read_s"] = *t.fabric_read_s;  // reads on the flow fabric only
  return out;
}

nlohmann::json checkpoint_json(const replay::CheckpointSpec& spec, const replay::CheckpointTiming& t) {
  nlohmann::json out{{"tier", spec.tier},
                     {"mode", replay::to_string(spec.mode)},
                     {"every_steps", spec.every_steps},
                     {"parameters", t.size.parameters},
                     {"bytes_per_parameter", t.size.bytes_per_parameter},
                     {"bytes", t.size.bytes},
                     {"writer_nodes", t.size.writer_nodes},
                     {"bytes_per_writer", t.size.bytes_per_writer},
                     {"tier_write_GBps", t.tier_write_Bps * 1e-9},
                     {"node_path_GBps", t.node_path_Bps * 1e-9},
                     {"closed_form_save_s", t.closed_form_save_s},
                     {"save_s", t.save_s},
                     {"copy_s", t.copy_s},
                     {"stall_s", t.stall_s},
                     {"contention_s", t.contention_s},
                     {"amortised_s_per_step", t.amortised_s},
                     {"load_s", t.load_s},
                     {"limit", t.limit}};
  if (const auto& f = t.fabric) {  // saves simulated on the flow fabric only
    out["fabric"] = {{"write_s", f->write_s}, {"saving_step_s", f->saving_step_s},
                     {"bytes_requested", f->requested.count()}, {"bytes_delivered", f->delivered.count()},
                     {"flows", f->flows}};
  }
  return out;
}

/// Which groups each pipeline stage ran on and its transformer layers, and the DP replicas'
/// micro-batches where they differ (docs/heterogeneous.md).
nlohmann::json pool_json(const replay::Scenario& s, const std::vector<std::int64_t>& dp_shares) {
  nlohmann::json stages = nlohmann::json::array();
  const auto groups = replay::stage_groups(s);
  for (std::size_t stage = 0; stage < groups.size(); ++stage) {
    nlohmann::json names = nlohmann::json::array();
    for (const std::size_t g : groups[stage]) names.push_back(s.pool.groups[g].name);
    stages.push_back({{"groups", names},
                      {"layers", s.split.stage_layers(s.model.layers, static_cast<std::int64_t>(stage))}});
  }
  nlohmann::json out{{"balance", s.pool.balance == replay::PoolBalance::kSpeed ? "speed" : "even"}, {"stages", stages}};
  if (!dp_shares.empty()) out["dp_micro_batches"] = dp_shares;  // only where they differ: other pools keep their bytes
  return out;
}

}  // namespace

nlohmann::json step_report_json(const replay::Scenario& s, const replay::StepReport& r) {
  const auto& b = r.breakdown;
  const auto& m = r.memory_gib_per_gpu;
  nlohmann::json out{
      {"scenario", s.source},
      {"model", s.model.name},
      {"cluster", s.cluster.name},
      {"gpu", s.gpu.name},
      {"gpus", s.gpus},
      {"network", network::name(s.network)},
      {"parallel", {{"tp", s.split.tp}, {"pp", s.split.pp}, {"vpp", s.split.vpp}, {"cp", s.split.cp}, {"ep", s.split.ep},
                    {"dp", r.dp}, {"micro_batches", r.micro_batches},
                    {"schedule", workload::schedule_name(s.split.schedule)}}},
      {"model_flops_per_step", r.model_flops_per_step},
      {"hardware_flops_per_step", r.hardware_flops_per_step},
      {"breakdown",
       {{"compute_s", b.compute_s},
        {"exposed_comm_s",
         {{"tp", b.exposed_comm_s.tp}, {"pp", b.exposed_comm_s.pp}, {"dp", b.exposed_comm_s.dp}, {"cp", b.exposed_comm_s.cp},
          {"ep", b.exposed_comm_s.ep}}},
        {"bubble_s", b.bubble_s},
        {"optimizer_s", b.optimizer_s}}},
      {"memory_gib_per_gpu",
       {{"weights", m.weights}, {"grads", m.grads}, {"optimizer", m.optimizer}, {"activations", m.activations},
        {"other", m.other}, {"total", m.total}}},
      {"memory_pipeline_stage", r.memory_stage},
      {"memory_total_gib_per_stage", r.memory_total_gib_per_stage},
      {"events", r.events}};
  const replay::StepFigures figures = replay::figures_of(r);
  out.update(replay::to_json(figures, kRunReportFigures));
  const analysis::ErrorBands bands = load_bundled_error_bands();
  out["error_band"] = error_band_json(analysis::band_for(bands, analysis::error_band_key(s)), figures);
  if (s.model.has_moe) out["parallel"]["expert_tp"] = s.split.expert_tp;  // dense reports keep their bytes
  if (r.data_pipeline) {  // likewise scenarios without a data pipeline
    out["breakdown"]["exposed_io_s"] = b.exposed_io_s;
    out["data_pipeline"] = data_pipeline_json(*s.data, *r.data_pipeline);
  }
  if (r.checkpoint) out["checkpoint"] = checkpoint_json(*s.checkpoint, *r.checkpoint);  // likewise those without
  if (!s.calibration.empty()) out["calibration"] = s.calibration;  // likewise uncalibrated ones
  if (!s.pool.groups.empty()) out["pool"] = pool_json(s, r.dp_shares);  // likewise homogeneous clusters
  if (const auto warnings = step_warnings(s); !warnings.empty()) out["warnings"] = build_warnings_json(warnings);
  return out;
}

nlohmann::json scenario_inputs_json(const Scenario& scenario) {
  const nlohmann::json& document = scenario.document();
  // The last change of a whole part wins, as it does when the scenario is read.
  const auto named = [&](const std::string& key, const std::string& absent) -> nlohmann::json {
    const nlohmann::json* value = document.is_object() && document.contains(key) ? &document.at(key) : nullptr;
    for (const auto& change : scenario.changes()) {
      if (change.path == key) value = &change.value;
    }
    if (value == nullptr || value->is_null()) return absent;
    return value->is_string() ? *value : nlohmann::json("inline");
  };
  nlohmann::json changes = nlohmann::json::array();
  for (const auto& change : scenario.changes()) {
    changes.push_back(change.path + "=" + (change.value.is_string() ? change.value.get<std::string>() : change.value.dump()));
  }
  return nlohmann::json{{"model", named("model", "none")},
                        {"cluster", named("cluster", "none")},
                        {"gpu", named("gpu", "cluster")},
                        {"set", changes}};
}

nlohmann::json step_json(const Scenario& given, const StepResult& result) {
  nlohmann::json out = step_report_json(result.scenario, result.step.report);
  out["inputs"] = scenario_inputs_json(given);
  // Only for an approximate replay, so that exact reports keep their bytes.
  if (result.step.flow_sample_gpus > 0) {
    out["flow_sample"] = {{"kind", replay::flow_sample_name(result.step.flow_sample)},
                          {"stage_gpus_on_fabric", result.step.flow_sample_gpus}};
  }
  // Said where it moves a rank off the contiguous layout or the scenario names one, so that the
  // reports of builds whose domains hold whole groups keep their bytes.
  const replay::Placement& placement = result.step.placement;
  if (!placement.identity() || placement.named()) {
    out["placement"] = {{"policy", replay::placement_name(placement.policy())},
                        {"nvlink_group_gpus", placement.block()},
                        {"domain_gpus", placement.domain_gpus()},
                        {"domains", placement.domains()},
                        {"build_gpus", placement.cluster_gpus()},
                        {"idle_gpus", placement.idle_gpus()},
                        {"straddling_groups", placement.straddling_blocks()}};
    // Node policies only (docs/cluster.md), so that the other placements keep their bytes.
    if (const auto* f = placement.footprint()) {
      auto& p = out["placement"];
      p["build_nodes"] = f->build_nodes;
      p["busy_nodes"] = f->busy_nodes;
      p["nodes"] = f->node_list;
      p["leaves"] = f->leaves;
      p["scalable_units"] = f->scalable_units;
      if (result.step.cross_spine_bytes) {
        p["cross_spine_bytes"] = result.step.cross_spine_bytes->count();
        p["fabric_bytes"] = result.step.fabric_bytes.count();
      }
    }
  }
  return out;
}

}  // namespace ctwin::api
