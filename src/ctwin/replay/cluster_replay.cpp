#include "ctwin/replay/cluster_replay.hpp"

#include <optional>
#include <utility>

#include "ctwin/core/error.hpp"
#include "ctwin/engine/simulator.hpp"
#include "ctwin/fabric/degradation.hpp"
#include "ctwin/network/flow_model.hpp"
#include "ctwin/replay/node_pool.hpp"
#include "ctwin/replay/shared_fabric.hpp"
#include "ctwin/replay/training_step.hpp"

namespace ctwin::replay {
namespace {

// One job while the build is replayed: what its steps need, and the steps run so far.
struct RunningClusterJob {
  const ClusterJob* job = nullptr;
  PreparedStep prepared;
  ReplayOptions options;
  std::unique_ptr<SharedFabricExecutor> executor;
  std::vector<std::unique_ptr<StepReplay>> steps;  // every step started, the window's first
  std::vector<SimTime> starts;
  std::vector<double> link_bytes;
  std::int64_t window_bytes = 0;
};

}  // namespace

std::string link_label(const fabric::Fabric& build, fabric::LinkId link) {
  const fabric::Link& l = build.link(link);
  const std::string direction =
      std::string(fabric::to_string(build.vertex_kind(l.from))) + " -> " + fabric::to_string(build.vertex_kind(l.to));
  const std::string cable = fabric::cable_name(build, link);
  return cable.empty() ? direction : cable + " (" + direction + ")";
}

ClusterReplayResult replay_jobs(const std::vector<ClusterJob>& jobs, const std::shared_ptr<const fabric::Fabric>& build,
                                bool count_links, const ClusterBackground* background) {
  engine::Simulator simulator;
  const auto network = std::make_unique<network::FlowModel>(*build, simulator);
  std::optional<BackgroundTraffic> streams;
  if (background != nullptr && !background->streams.empty()) {
    streams.emplace(background->streams, *network, simulator, background->chunk);
    streams->start();
  }
  std::vector<RunningClusterJob> running(jobs.size());
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    RunningClusterJob& r = running[j];
    r.job = &jobs[j];
    CTWIN_ASSERT(r.job->steps >= 1, "a job's window has a step");
    const Scenario& scenario = *r.job->scenario;
    check_group_servers_priced(scenario, true, false);
    r.prepared = prepare_step(scenario);
    CTWIN_ASSERT(r.prepared.placement.cluster_gpus() <= build->gpus(), "a job's placement lies inside the build");
    r.options.pp_overlap = scenario.overlap.pp_p2p;
    r.executor = std::make_unique<SharedFabricExecutor>(build, r.prepared.work.stage_gpus, simulator, *r.prepared.comm,
                                                        nullptr, r.prepared.work.stage_gpus, &r.prepared.placement,
                                                        network.get());
    r.executor->plan_stages(r.prepared.pool.stage_plans);
    if (count_links) {
      r.link_bytes.assign(build->links().size(), 0.0);
      r.executor->count_link_bytes(&r.link_bytes);
    }
  }
  std::size_t windows_left = jobs.size();
  // Starts job j's next step at now, or at its offset for the first.
  std::function<void(std::size_t)> next_step = [&](std::size_t j) {
    RunningClusterJob& r = running[j];
    const SimTime at = r.steps.empty() ? r.job->start : simulator.now();
    r.steps.push_back(std::make_unique<StepReplay>(r.prepared.work, r.prepared.order, r.options, simulator, *r.executor));
    r.starts.push_back(at);
    r.steps.back()->start(at, [&, j] {
      RunningClusterJob& done = running[j];
      if (static_cast<int>(done.steps.size()) == done.job->steps) {
        done.executor->count_link_bytes(nullptr);
        done.window_bytes = done.executor->bytes_started().count();
        --windows_left;
        if (windows_left == 0 && streams) streams->stop();
      }
      if (windows_left > 0) next_step(j);
    });
  };
  for (std::size_t j = 0; j < jobs.size(); ++j) next_step(j);
  simulator.run();
  ClusterReplayResult result;
  result.events = simulator.events_processed();
  if (streams) result.background = streams->results();
  for (RunningClusterJob& r : running) {
    JobReplay out;
    for (int s = 0; s < r.job->steps; ++s) {
      auto& step = *r.steps[static_cast<std::size_t>(s)];
      CTWIN_ASSERT(step.finished(), "every job runs its window");
      out.steps.push_back(step.result());
      out.starts.push_back(r.starts[static_cast<std::size_t>(s)]);
    }
    out.placement = r.prepared.placement;
    out.link_bytes = std::move(r.link_bytes);
    out.fabric_bytes = Bytes(r.window_bytes);
    result.jobs.push_back(std::move(out));
  }
  return result;
}

}  // namespace ctwin::replay
