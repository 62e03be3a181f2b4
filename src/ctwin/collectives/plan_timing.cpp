#include "ctwin/collectives/plan_timing.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <optional>

#include "ctwin/core/error.hpp"
#include "ctwin/engine/simulator.hpp"
#include "ctwin/network/network_model.hpp"

namespace ctwin::collectives {
namespace {

std::unique_ptr<network::NetworkModel> make_model(network::ModelKind network, const fabric::Fabric& fabric,
                                                  engine::Simulator& simulator) {
  if (network == network::ModelKind::kSimgrid) {
    throw InputError("--network", "", "collectives run on analytical or flow (simgrid has no PXN, channels or NVLS legs)");
  }
  return network::make_network_model(network, fabric, simulator);
}

Bytes bytes_of(double bytes) { return Bytes(std::max<std::int64_t>(1, std::llround(bytes))); }

// Large enough that rounding to whole bytes and picoseconds is noise once scaled: the drain
// times are scaled to every size of a sweep, rounding included.
double reference_size(const Plan& plan) {
  double smallest = 1;
  for (const auto& phase : plan.phases) {
    for (const auto& transfer : phase.transfers) smallest = std::min(smallest, transfer.fraction);
  }
  return std::max(double(1 << 30), 1024.0 / smallest);
}

double mean_hop_latency_s(const std::vector<HopClass>& hops, const CostContext& where, Protocol protocol,
                          const CollectiveTuning& tuning) {
  if (hops.empty()) return 0;
  double sum = 0;
  for (HopClass hop : hops) sum += tuning.cost(where, protocol, hop).hop_latency.seconds();
  return sum / static_cast<double>(hops.size());
}

// What a pipelined phase pays on top of one step's hop: the rest of its depth, counted per hop
// class where the plan says how many of each, else in mean hops.
double pipeline_rest_s(const std::array<int, 3>& pipeline_hops, int latency_hops, double mean_hop_s,
                       const std::array<double, 3>& hop_latency_s) {
  double depth_s = 0;
  for (std::size_t c = 0; c < pipeline_hops.size(); ++c) depth_s += pipeline_hops[c] * hop_latency_s[c];
  if (depth_s == 0) return (latency_hops - 1) * mean_hop_s;
  return std::max(0.0, depth_s - mean_hop_s);
}

// A pipelined phase (a tree, NVLS, a chain) pays its depth's latency once, as NCCL's tuning
// model counts it, whatever the class of the hop a transfer crosses: its data streams through
// every hop at once.
bool pipelined(const Phase& phase) {
  return phase.latency_hops > 1 || std::any_of(phase.pipeline_hops.begin(), phase.pipeline_hops.end(), [](int h) { return h > 0; });
}

// The protocol's bus-bandwidth ceiling as a floor on the time, latency included.
double ceiling_bound_s(const ProtocolCost& cost, double size_bytes) {
  if (cost.max_bus_GBps <= 0) return 0;
  return cost.base_latency.seconds() + size_bytes * cost.bus_bytes_per_byte / (cost.max_bus_GBps * 1e9);
}

// On `analytical` no transfer sees another, so the channels of a step that all cross one
// GPU's NVLink port would each get the whole port: an 8-GPU all_gather came out at 1,347 GB/s
// busbw where flow, fairly sharing the port, gives 322. How a plan's own transfers share links
// is known from the plan, with no simulation, so analytical counts it: a transfer takes as long
// as the busiest link on its path needs to carry everything the step puts on it,
//   drain_t = max over links l of its path ( Σ bytes of the step's transfers on l / capacity_l ),
// which is what fair sharing gives when the transfers on that link are alike (flow agrees
// exactly on a ring or an alltoall in one node). Contention with anything outside the step
// stays flow's alone.
struct AnalyticalTimes {
  std::vector<double> latency_s;             // path latency, per transfer
  std::vector<double> drain_s_per_own_byte;  // the step's busiest link on the path
  std::vector<double> alone_s_per_own_byte;  // the path's bottleneck, had the transfer it alone
};

AnalyticalTimes analytical_times(const Phase& phase, const fabric::Fabric& fabric) {
  const std::size_t count = phase.transfers.size();
  std::vector<double> load(fabric.links().size(), 0.0);  // bytes per byte of the collective, per link
  std::vector<std::vector<fabric::LinkId>> paths(count);
  // Under adaptive routing a transfer loads every equal-cost path by its share (no collisions);
  // its latency and lone bottleneck stay those of its hashed path, as equal-cost paths are alike.
  // Under ECMP the hashed path is the whole load: routed once, no shares kept.
  const bool adaptive = fabric.spec().fabric.routing == fabric::RoutingPolicy::kAdaptive;
  std::vector<std::vector<std::pair<fabric::LinkId, double>>> spread(adaptive ? count : 0);
  for (std::size_t i = 0; i < count; ++i) {
    const auto& planned = phase.transfers[i];
    fabric::append_route(fabric, planned.src, planned.dst, planned.route, paths[i]);
    if (adaptive) {
      fabric::append_spread_route(fabric, planned.src, planned.dst, planned.route, spread[i]);
      for (const auto& [link, share] : spread[i]) load[link] += planned.fraction * share;
    } else {
      for (fabric::LinkId link : paths[i]) load[link] += planned.fraction;
    }
  }
  AnalyticalTimes times{std::vector<double>(count, 0.0), std::vector<double>(count, 0.0), std::vector<double>(count, 0.0)};
  for (std::size_t i = 0; i < count; ++i) {
    const auto properties = fabric::path_properties(fabric, paths[i]);
    times.latency_s[i] = properties.latency.seconds();
    if (paths[i].empty() || phase.transfers[i].fraction <= 0) continue;
    double busiest = 0;
    const auto consider = [&](fabric::LinkId link) {
      busiest = std::max(busiest, load[link] / fabric.link(link).achieved().bytes_per_second());
    };
    if (adaptive) {
      for (const auto& share : spread[i]) consider(share.first);
    } else {
      for (fabric::LinkId link : paths[i]) consider(link);
    }
    times.drain_s_per_own_byte[i] = busiest / phase.transfers[i].fraction;
    times.alone_s_per_own_byte[i] = 1.0 / properties.bottleneck.bytes_per_second();
  }
  return times;
}

// What the every-transfer executor sends through the analytical model so that each transfer
// takes its drain above: its bytes times its drain over its drain alone (≥ 1).
std::vector<double> step_slowdowns(network::ModelKind network, const Phase& phase, const fabric::Fabric& fabric) {
  std::vector<double> slowdowns(phase.transfers.size(), 1.0);
  if (network != network::ModelKind::kAnalytical) return slowdowns;
  const AnalyticalTimes times = analytical_times(phase, fabric);
  for (std::size_t i = 0; i < slowdowns.size(); ++i) {
    if (times.alone_s_per_own_byte[i] > 0) {
      slowdowns[i] = std::max(1.0, times.drain_s_per_own_byte[i] / times.alone_s_per_own_byte[i]);
    }
  }
  return slowdowns;
}

void require_supported(const ProtocolCost& cost, const CostContext& where, Protocol protocol) {
  if (!cost.supported) {
    throw InputError("--proto", "", std::string(name(where.algorithm)) + " does not run with protocol " +
                                        std::string(name(protocol)) + " (NVLS runs Simple only)");
  }
}

}  // namespace

PlanProfile::PlanProfile(const Plan& plan, const fabric::Fabric& fabric, network::ModelKind network)
    : context_(plan.context()) {
  const double reference = reference_size(plan);
  std::vector<fabric::LinkId> path;
  for (const auto& phase : plan.phases) {
    PhaseProfile profile;
    profile.repeat = phase.repeat;
    profile.latency_hops = phase.latency_hops;
    profile.pipeline_hops = phase.pipeline_hops;
    profile.pipelined = pipelined(phase);
    profile.transfers = phase.transfers.size();
    const std::size_t count = phase.transfers.size();
    // Per transfer: seconds per byte of its own to drain, once its latency has passed.
    std::vector<double> drain_s_per_own_byte;
    std::vector<double> latencies;
    if (network == network::ModelKind::kAnalytical) {
      AnalyticalTimes times = analytical_times(phase, fabric);
      latencies = std::move(times.latency_s);
      drain_s_per_own_byte = std::move(times.drain_s_per_own_byte);
    } else {
      for (const auto& planned : phase.transfers) {
        path.clear();
        fabric::append_route(fabric, planned.src, planned.dst, planned.route, path);
        latencies.push_back(fabric::path_properties(fabric, path).latency.seconds());
      }
      engine::Simulator simulator;
      auto model = make_model(network, fabric, simulator);
      std::vector<SimTime> done(count);
      std::vector<double> bytes(count);
      for (std::size_t i = 0; i < count; ++i) {
        const auto& planned = phase.transfers[i];
        bytes[i] = static_cast<double>(bytes_of(reference * planned.fraction).count());
        model->start_transfer({planned.src, planned.dst, Bytes(static_cast<std::int64_t>(bytes[i])), planned.route},
                              [&done, &simulator, i] { done[i] = simulator.now(); });
      }
      model->run();
      events_ += simulator.events_processed();
      for (std::size_t i = 0; i < count; ++i) {
        drain_s_per_own_byte.push_back(std::max(0.0, done[i].seconds() - latencies[i]) / bytes[i]);
      }
    }
    std::array<std::vector<Line>, 6> lines;
    for (std::size_t i = 0; i < count; ++i) {
      const auto& planned = phase.transfers[i];
      // Seconds per byte of the transfer, times its bytes per byte of the collective.
      const double drain = drain_s_per_own_byte[i] * planned.fraction;
      ShareGroup& group = profile.groups[group_of(planned)];
      group.latency_sum_s += latencies[i];
      group.drain_sum_s_per_byte += drain;
      ++group.count;
      group.slowest_s_per_transfer_byte = std::max(group.slowest_s_per_transfer_byte, drain_s_per_own_byte[i]);
      lines[group_of(planned)].push_back({latencies[i], drain});
      ++profile.hop_counts[static_cast<std::size_t>(planned.hop)];
    }
    for (std::size_t g = 0; g < lines.size(); ++g) profile.groups[g].front = undominated(std::move(lines[g]));
    phases_.push_back(std::move(profile));
  }
}

std::size_t PlanProfile::share_group(const PlannedTransfer& transfer) {
  return transfer.route.leg == fabric::SwitchLeg::kWhole ? 0 : 1;
}

std::size_t PlanProfile::group_of(const PlannedTransfer& transfer) {
  return share_group(transfer) * 3 + static_cast<std::size_t>(transfer.hop);
}

double PlanProfile::payload_share(const ProtocolCost& cost, std::size_t group) {
  return group < 3 ? cost.bandwidth_share : cost.switch_share;
}

std::vector<PlanProfile::Line> PlanProfile::undominated(std::vector<Line> lines) {
  // A line that another matches or beats on both latency and drain is never the only max
  // for S >= 0, so dropping it changes no result, not even by rounding.
  std::sort(lines.begin(), lines.end(), [](const Line& a, const Line& b) {
    return a.drain_s_per_byte != b.drain_s_per_byte ? a.drain_s_per_byte > b.drain_s_per_byte
                                                    : a.latency_s > b.latency_s;
  });
  std::vector<Line> front;
  for (const Line& line : lines) {
    if (front.empty() || line.latency_s > front.back().latency_s) front.push_back(line);
  }
  return front;
}

static_assert(static_cast<std::size_t>(HopClass::kNet) == 2, "PhaseProfile::hop_counts and groups have a slot per HopClass");

SimTime PlanProfile::time(Bytes size, Protocol protocol, const CollectiveTuning& tuning) const {
  const auto base = tuning.cost(context_, protocol, HopClass::kNvlink);
  require_supported(base, context_, protocol);
  std::array<double, 3> hop_latency_s{};
  for (HopClass hop : {HopClass::kNvlink, HopClass::kPcie, HopClass::kNet}) {
    hop_latency_s[static_cast<std::size_t>(hop)] = tuning.cost(context_, protocol, hop).hop_latency.seconds();
  }
  const double s = static_cast<double>(size.count());
  double total = base.base_latency.seconds();
  for (const auto& phase : phases_) {
    const double transfers = static_cast<double>(std::max<std::size_t>(1, phase.transfers));
    double hop = 0;
    for (std::size_t c = 0; c < hop_latency_s.size(); ++c) hop += static_cast<double>(phase.hop_counts[c]) * hop_latency_s[c];
    hop /= transfers;
    // A phase's steps are bounded two ways: each connection waits for the latency that starts
    // it, then moves its steps one after the other (bandwidth: its transfer, latency
    // included, once per step), and data crosses one hop per step (latency: the mean
    // transfer plus its hop's pipeline cost).
    double connection = 0;
    double sum = 0;
    for (std::size_t g = 0; g < phase.groups.size(); ++g) {
      const ShareGroup& group = phase.groups[g];
      const double bytes = s / payload_share(base, g);
      const double first = phase.pipelined ? hop : hop_latency_s[g % 3];
      for (const Line& line : group.front) {
        connection = std::max(connection, first + phase.repeat * (line.latency_s + line.drain_s_per_byte * bytes));
      }
      sum += group.latency_sum_s + group.drain_sum_s_per_byte * bytes;
    }
    total += std::max(connection, phase.repeat * (sum / transfers + hop)) +
             pipeline_rest_s(phase.pipeline_hops, phase.latency_hops, hop, hop_latency_s);
  }
  return SimTime::from_seconds(std::max(total, ceiling_bound_s(base, s)));
}

SimTime PlanProfile::pipeline_fill(Bytes size, Protocol protocol, const CollectiveTuning& tuning) const {
  const auto base = tuning.cost(context_, protocol, HopClass::kNvlink);
  const Bytes chunk = pipeline_chunk(context_, protocol, size);
  if (chunk <= Bytes(0)) return SimTime();
  const double per_channel = static_cast<double>(size.count()) / std::max(1, context_.channels);
  const double moved = std::min(static_cast<double>(chunk.count()), per_channel);
  double fill = 0;
  for (const auto& phase : phases_) {
    int depth = 0;
    for (int hops : phase.pipeline_hops) depth += hops;
    if (depth < 2) continue;
    double pace = 0;
    for (std::size_t g = 0; g < phase.groups.size(); ++g) {
      pace = std::max(pace, phase.groups[g].slowest_s_per_transfer_byte / payload_share(base, g));
    }
    fill += (depth - 1) * moved * pace;
  }
  return SimTime::from_seconds(fill);
}

SimTime run_every_transfer(const Plan& plan, const fabric::Fabric& fabric, network::ModelKind network, Bytes size,
                           Protocol protocol, const CollectiveTuning& tuning) {
  engine::Simulator simulator;
  auto model = make_model(network, fabric, simulator);
  const CostContext where = plan.context();
  const auto cost_of = [&](HopClass hop) { return tuning.cost(where, protocol, hop); };
  const ProtocolCost base = cost_of(HopClass::kNvlink);
  require_supported(base, where, protocol);

  struct Step {
    const Phase* phase;
    const std::vector<double>* slowdowns;  // analytical's share of the step's busiest links
    SimTime pipeline_latency;  // beyond one hop: a pipelined phase pays its depth's latency once
    std::optional<SimTime> depth;  // a pipelined phase's whole latency, the same for every transfer
    std::vector<int> waiting;  // per transfer: its inputs (arrivals at its source, its own last send) still due
    std::vector<std::vector<std::uint32_t>> fed_by_gpu;  // per (GPU, channel): transfers it sends
    std::vector<std::uint32_t> after_barrier;  // transfers whose source received nothing before
    std::vector<SimTime> ready_at;             // per transfer: when its inputs allow it to start
    std::size_t remaining = 0;
  };
  std::vector<Step> steps;
  std::vector<std::vector<double>> slowdowns;  // per phase, per transfer; steps point into it
  slowdowns.reserve(plan.phases.size());
  for (const auto& phase : plan.phases) {
    slowdowns.push_back(step_slowdowns(network, phase, fabric));
    std::vector<HopClass> hops;
    for (const auto& t : phase.transfers) hops.push_back(t.hop);
    std::array<double, 3> hop_latency_s{};
    for (HopClass hop : {HopClass::kNvlink, HopClass::kPcie, HopClass::kNet}) {
      hop_latency_s[static_cast<std::size_t>(hop)] = cost_of(hop).hop_latency.seconds();
    }
    const SimTime pipeline = SimTime::from_seconds(pipeline_rest_s(
        phase.pipeline_hops, phase.latency_hops, mean_hop_latency_s(hops, where, protocol, tuning), hop_latency_s));
    // Every transfer of a pipelined phase waits for the whole depth, as the steady state
    // counts it: the mean hop, then the rest.
    const std::optional<SimTime> depth =
        pipelined(phase) ? std::optional(SimTime::from_seconds(mean_hop_latency_s(hops, where, protocol, tuning)) + pipeline)
                         : std::nullopt;
    for (int k = 0; k < phase.repeat; ++k) {
      steps.push_back({&phase, &slowdowns.back(), pipeline, depth, {}, {}, {}, {}, phase.transfers.size()});
    }
  }
  // The latency between a transfer's data arriving and the transfer starting.
  const auto start_latency = [&](const Step& step, std::uint32_t j) {
    return step.depth ? *step.depth : cost_of(step.phase->transfers[j].hop).hop_latency + step.pipeline_latency;
  };
  // Channels are independent pipelines, as in NCCL: a transfer on channel c waits for what
  // its source received on channel c in the step before, and for its source's own send of the
  // step before on that channel (a connection moves its steps in order).
  std::uint64_t channels = 1;
  for (const auto& phase : plan.phases) {
    for (const auto& t : phase.transfers) channels = std::max(channels, t.route.flow_label + 1);
  }
  const auto slot = [&](fabric::GpuId gpu, const PlannedTransfer& t) {
    return static_cast<std::size_t>(gpu) * channels + t.route.flow_label;
  };
  const std::size_t slots = static_cast<std::size_t>(fabric.gpus()) * channels;
  for (std::size_t s = 0; s < steps.size(); ++s) {
    Step& step = steps[s];
    const auto& transfers = step.phase->transfers;
    step.waiting.assign(transfers.size(), 0);
    step.fed_by_gpu.assign(slots, {});
    std::vector<int> arrivals(slots, 0);
    if (s > 0) {
      for (const auto& t : steps[s - 1].phase->transfers) {
        ++arrivals[slot(t.dst, t)];
        ++arrivals[slot(t.src, t)];
      }
    }
    for (std::uint32_t i = 0; i < transfers.size(); ++i) {
      const std::size_t source = slot(transfers[i].src, transfers[i]);
      step.waiting[i] = arrivals[source];
      step.fed_by_gpu[source].push_back(i);
      if (s > 0 && arrivals[source] == 0) steps[s - 1].after_barrier.push_back(i);
    }
  }

  // A transfer may start once its data is in (plus its hop's latency: the pipeline's step
  // cost) and its connection's previous send has left (no latency: NCCL keeps several steps
  // of a connection in flight, so only bandwidth serializes them).
  for (auto& step : steps) step.ready_at.assign(step.phase->transfers.size(), SimTime());
  SimTime finish;
  std::function<void(std::size_t, std::uint32_t)> launch = [&](std::size_t s, std::uint32_t i) {
    simulator.schedule_at(std::max(steps[s].ready_at[i], simulator.now()), [&, s, i] {
      const auto& planned = steps[s].phase->transfers[i];
      const double share = planned.route.leg != fabric::SwitchLeg::kWhole ? base.switch_share : base.bandwidth_share;
      const Bytes bytes = bytes_of(static_cast<double>(size.count()) * planned.fraction / share * (*steps[s].slowdowns)[i]);
      model->start_transfer({planned.src, planned.dst, bytes, planned.route}, [&, s, i] {
        finish = std::max(finish, simulator.now());
        const auto& arrived = steps[s].phase->transfers[i];
        if (s + 1 < steps.size()) {
          Step& next = steps[s + 1];
          for (fabric::GpuId gpu : {arrived.dst, arrived.src}) {
            for (std::uint32_t j : next.fed_by_gpu[slot(gpu, arrived)]) {
              const SimTime ready = gpu == arrived.dst ? simulator.now() + start_latency(next, j) : simulator.now();
              next.ready_at[j] = std::max(next.ready_at[j], ready);
              if (--next.waiting[j] == 0) launch(s + 1, j);
            }
          }
        }
        if (--steps[s].remaining == 0 && s + 1 < steps.size()) {
          for (std::uint32_t j : steps[s].after_barrier) {
            steps[s + 1].ready_at[j] = simulator.now() + start_latency(steps[s + 1], j);
            launch(s + 1, j);
          }
        }
      });
    });
  };
  if (!steps.empty()) {
    for (std::uint32_t i = 0; i < steps[0].phase->transfers.size(); ++i) {
      steps[0].ready_at[i] = start_latency(steps[0], i);
      launch(0, i);
    }
  }
  model->run();
  const double total = (base.base_latency + finish).seconds();
  return SimTime::from_seconds(std::max(total, ceiling_bound_s(base, static_cast<double>(size.count()))));
}

}  // namespace ctwin::collectives
