#include "ctwin/studies/cluster_json.hpp"

#include "ctwin/replay/step_figures.hpp"

namespace ctwin::api {
namespace {

// A job's step in the shared window: three of the step's headline figures, under the names and
// by the writer every report uses (replay/step_figures.hpp).
constexpr replay::FigureSet kClusterStepFigures{replay::Figure::kStepTime, replay::Figure::kExposedComm,
                                                replay::Figure::kTokensPerS};

nlohmann::json cluster_step_json(const ClusterStepFigures& f) {
  replay::StepFigures figures;
  figures.step_time_s = f.step_time_s;
  figures.exposed_comm_s = f.exposed_comm_s;
  figures.tokens_per_s = f.tokens_per_s;
  return replay::to_json(figures, kClusterStepFigures);
}

nlohmann::json cluster_job_json(const ClusterJobResult& job) {
  nlohmann::json steps = nlohmann::json::array();
  for (const auto& s : job.shared) steps.push_back(cluster_step_json(s));
  nlohmann::json links = nlohmann::json::array();
  for (const auto& l : job.contended) {
    links.push_back({{"link", l.link}, {"label", l.label}, {"kind", l.kind}, {"bytes", l.bytes}, {"others_bytes", l.others_bytes}});
  }
  nlohmann::json out{{"name", job.name},
                     {"scenario", job.scenario},
                     {"model", job.resolved.model.name},
                     {"gpus", job.resolved.gpus},
                     {"placement", job.placement},
                     {"nodes", job.nodes},
                     {"leaves", job.leaves},
                     {"start_s", job.start_s}};
  if (job.phase_shift > 0) out["phase_shift"] = job.phase_shift;
  if (!job.dp_micro_batches.empty()) out["dp_micro_batches"] = job.dp_micro_batches;
  out["alone"] = cluster_step_json(job.alone);
  out["shared"] = cluster_step_json(job.shared_mean);
  out["slowdown"] = job.slowdown;
  out["shared_steps"] = std::move(steps);
  out["fabric_bytes"] = job.fabric_bytes;
  out["contended_links"] = std::move(links);
  if (job.alone_with_background) {
    out["alone_with_background"] = cluster_step_json(*job.alone_with_background);
    out["background_slowdown"] = job.background_slowdown;
  }
  return out;
}

}  // namespace

nlohmann::json cluster_json(const ClusterStudy& study) {
  nlohmann::json jobs = nlohmann::json::array();
  for (const auto& job : study.jobs) jobs.push_back(cluster_job_json(job));
  nlohmann::json out{{"cluster", study.cluster},     {"build_nodes", study.build_nodes}, {"build_gpus", study.build_gpus},
                     {"busy_nodes", study.busy_nodes}, {"steps", study.steps},             {"window_end_s", study.window_end_s},
                     {"events", study.events},         {"jobs", std::move(jobs)}};
  if (!study.unplaced.empty()) out["unplaced"] = study.unplaced;
  if (!study.background.empty()) {
    nlohmann::json streams = nlohmann::json::array();
    for (const auto& b : study.background) {
      streams.push_back({{"entry", b.entry}, {"label", b.label}, {"rate_Gbps", b.rate_Gbps},
                         {"achieved_Gbps", b.achieved_Gbps}, {"less_than_asked", b.less_than_asked}});
    }
    out["background"] = std::move(streams);
  }
  return out;
}

}  // namespace ctwin::api
