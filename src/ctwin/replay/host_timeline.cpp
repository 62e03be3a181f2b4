#include "ctwin/replay/host_timeline.hpp"

#include <algorithm>
#include <cstring>

namespace ctwin::replay {
namespace {

bool repeats(const OpNode& op) { return op.occurs == Occurs::kEvery; }

// What the compute stream waits for: its kernels, and a collective it joins at once.
SimTime gpu_time(const OpNode& op) {
  if (op.host) return SimTime();
  if (op.stream == Stream::kCompute || op.join == Join::kNow) return op.duration;
  return SimTime();
}

}  // namespace

SimTime HostTimeline::exposed() const {
  SimTime total;
  for (const SimTime idle : gpu_idle) total += idle;
  return total;
}

HostTimeline issue_timeline(const std::vector<HostKernel>& kernels) {
  HostTimeline t;
  double host = 0, gpu_end = 0, busy = 0, issued = 0;
  for (const auto& kernel : kernels) {
    const int launches = kernel.launches > 0 ? kernel.launches : 1;
    if (kernel.sync) host = std::max(host, gpu_end);
    const double host_share = kernel.host.seconds() / launches;
    const double gpu_share = kernel.gpu.seconds() / launches;
    double idle = 0;
    for (int i = 0; i < launches; ++i) {
      host += host_share;
      if (host > gpu_end) idle += host - gpu_end;
      gpu_end = std::max(gpu_end, host) + gpu_share;
    }
    busy += kernel.gpu.seconds();
    issued += kernel.host.seconds();
    t.gpu_idle.push_back(SimTime::from_seconds(idle));
  }
  t.host_busy = SimTime::from_seconds(issued);
  t.gpu_busy = SimTime::from_seconds(busy);
  t.end = SimTime::from_seconds(gpu_end);
  return t;
}

SimTime host_cost(const OpNode& op, const Scenario& scenario) {
  const double launch = scenario.gpu.host_launch.seconds();
  const double factor = op.grouped ? kHostGroupedFactor : kHostOpFactor;
  const int launches = op.launches > 0 ? op.launches : 1;
  return SimTime::from_seconds(launch * (factor + (launches - 1)));
}

void apply_host_issue(std::vector<OpNode>& ops, const Scenario& scenario) {
  if (ops.empty()) return;
  // Per stretch (from the pass start, or a sync, to the next sync): the ops that repeat.
  struct Stretch {
    int sync = -1;  // the sync op that starts it (-1: the pass start)
    std::vector<HostKernel> kernels;
  };
  std::vector<Stretch> stretches(1);
  bool first_op = true;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const OpNode& op = ops[i];
    if (op.host) stretches.push_back({static_cast<int>(i), {}});
    if (!repeats(op)) continue;
    HostKernel k{gpu_time(op), host_cost(op, scenario), op.host ? 1 : std::max(op.launches, 1), false};
    if (scenario.cuda_graphs) {
      // One launch replays the captured pass.
      k.host = first_op ? scenario.gpu.host_launch : SimTime();
      k.launches = 1;
    }
    first_op = false;
    stretches.back().kernels.push_back(k);
  }
  SimTime lead_in;  // the first stretch: what the host needs beyond the GPU
  {
    SimTime host, gpu;
    for (const auto& k : stretches.front().kernels) host += k.host, gpu += k.gpu;
    if (host > gpu) lead_in = host - gpu;
  }
  for (std::size_t s = 1; s < stretches.size(); ++s) {
    ops[static_cast<std::size_t>(stretches[s].sync)].duration = issue_timeline(stretches[s].kernels).exposed();
  }
  if (lead_in <= SimTime()) return;
  if (stretches.size() > 1) {
    ops[static_cast<std::size_t>(stretches[1].sync)].duration += lead_in;
    return;
  }
  OpNode wait{"host_issue", Stream::kCompute, lead_in};
  wait.host = true;
  wait.launches = 0;
  ops.push_back(wait);
}

void apply_host_issue(ChunkWork& work, const Scenario& scenario) {
  apply_host_issue(work.forward, scenario);
  apply_host_issue(work.backward, scenario);
}

}  // namespace ctwin::replay
