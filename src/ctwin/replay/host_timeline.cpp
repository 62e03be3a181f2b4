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

// The issue clock of one stretch: host and GPU start together at 0.
struct IssueClock {
  double host = 0, gpu_end = 0;
  /// Issues `kernel`; returns the GPU's wait for the host just before it, in seconds.
  double issue(const HostKernel& kernel) {
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
    return idle;
  }
};

}  // namespace

SimTime HostTimeline::exposed() const {
  SimTime total;
  for (const SimTime idle : gpu_idle) total += idle;
  return total;
}

HostTimeline issue_timeline(const std::vector<HostKernel>& kernels) {
  HostTimeline t;
  IssueClock clock;
  double busy = 0, issued = 0;
  t.gpu_idle.reserve(kernels.size());
  for (const auto& kernel : kernels) {
    const double idle = clock.issue(kernel);
    busy += kernel.gpu.seconds();
    issued += kernel.host.seconds();
    t.gpu_idle.push_back(SimTime::from_seconds(idle));
  }
  t.host_busy = SimTime::from_seconds(issued);
  t.gpu_busy = SimTime::from_seconds(busy);
  t.end = SimTime::from_seconds(clock.gpu_end);
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
  // One pass over the ops, stretch by stretch (from the pass start, or a sync, to the next sync),
  // with what issue_timeline(kernels).exposed() sums kept as it goes: no kernel lists to build,
  // the same arithmetic in the same order.
  SimTime lead_host, lead_gpu;  // the first stretch's repeating ops: host and GPU time
  int first_sync = -1;          // the first stretch after the pass start (-1: none)
  int sync = -1;                // the sync op that starts the current stretch (-1: the pass start)
  IssueClock clock;
  SimTime exposed;  // the current stretch's Σ gpu_idle
  const auto close_stretch = [&] {
    if (sync >= 0) ops[static_cast<std::size_t>(sync)].duration = exposed;
  };
  // Most ops are one ordinary launch: their host cost, once (host_cost is a function of the op's
  // grouped flag and launches alone).
  const SimTime single = host_cost(OpNode{}, scenario);
  bool first_op = true;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const OpNode& op = ops[i];
    if (op.host) {
      close_stretch();
      sync = static_cast<int>(i);
      if (first_sync < 0) first_sync = sync;
      clock = {};
      exposed = SimTime();
    }
    if (!repeats(op)) continue;
    HostKernel k{gpu_time(op), !op.grouped && op.launches == 1 ? single : host_cost(op, scenario),
                 op.host ? 1 : std::max(op.launches, 1), false};
    if (scenario.cuda_graphs) {
      // One launch replays the captured pass.
      k.host = first_op ? scenario.gpu.host_launch : SimTime();
      k.launches = 1;
    }
    first_op = false;
    // Host work before the op's first launch (a stack's host_after_sync): all of it ahead of the
    // launch, not spread over its launches as the launch costs are.
    const SimTime before = scenario.cuda_graphs ? SimTime() : op.host_extra;
    if (sync < 0) {
      lead_host += k.host + before;
      lead_gpu += k.gpu;
    } else {
      if (before > SimTime()) exposed += SimTime::from_seconds(clock.issue({SimTime(), before, 1, false}));
      exposed += SimTime::from_seconds(clock.issue(k));
    }
  }
  close_stretch();
  if (lead_host <= lead_gpu) return;  // the first stretch: what the host needs beyond the GPU
  const SimTime lead_in = lead_host - lead_gpu;
  if (first_sync >= 0) {
    ops[static_cast<std::size_t>(first_sync)].duration += lead_in;
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
