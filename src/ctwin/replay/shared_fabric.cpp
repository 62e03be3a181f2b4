#include "ctwin/replay/shared_fabric.hpp"

#include <algorithm>
#include <cmath>

#include "ctwin/core/error.hpp"
#include "ctwin/engine/simulator.hpp"
#include "ctwin/fabric/router.hpp"

namespace ctwin::replay {
namespace {

// Flows per GPU pair of a pipeline send, for ECMP: NCCL's default NCCL_NCHANNELS_PER_NET_PEER
// (NCCL environment variable documentation) gives a pair of ranks two channels, each its own
// connection. Collectives take their channels from their plans.
constexpr int kFlowsPerPair = 2;

// Collective bytes at which a pace is measured: large enough that the fluid part dwarfs
// latencies even for the smallest transfer of a plan.
double probe_size(const std::vector<double>& fractions) {
  double smallest = 1;
  for (const double f : fractions) {
    if (f > 0) smallest = std::min(smallest, f);
  }
  return std::max(double(std::int64_t{1} << 30), double(std::int64_t{16} << 20) / smallest);
}

}  // namespace

SharedFabricExecutor::SharedFabricExecutor(std::shared_ptr<const fabric::Fabric> built, std::int64_t stage_gpus,
                                           engine::Simulator& simulator, CollectiveTimes& plans,
                                           std::shared_ptr<const fabric::Fabric> healthy, std::int64_t sample_gpus,
                                           const Placement* placement, network::NetworkModel* network)
    : fabric_(std::move(built)),
      pace_fabric_(healthy ? std::move(healthy) : fabric_),
      stage_gpus_(stage_gpus),
      sample_gpus_(sample_gpus > 0 ? sample_gpus : stage_gpus),
      placement_(placement != nullptr && !placement->identity() ? std::optional<Placement>(*placement) : std::nullopt),
      pxn_(fabric_->spec().server.nvlink.has_value()),
      simulator_(simulator),
      plans_(plans),
      own_network_(network == nullptr ? network::make_network_model(network::ModelKind::kFlow, *fabric_, simulator)
                                      : nullptr),
      network_(network == nullptr ? own_network_.get() : network) {
  CTWIN_ASSERT(&network_->fabric() == fabric_.get() && &network_->simulator() == &simulator,
               "a shared network model moves the executor's fabric on its simulator");
  CTWIN_ASSERT(sample_gpus_ <= stage_gpus_ && stage_gpus_ % sample_gpus_ == 0, "a sample is whole blocks of a stage");
}

SharedFabricExecutor::~SharedFabricExecutor() = default;

void SharedFabricExecutor::append_group(const collectives::Plan& plan, const CommCall& call, int stage,
                                        std::int64_t leader, Traffic& out, std::uint32_t group_class) const {
  const auto members = group_members(call.group, leader);
  CTWIN_ASSERT(plan.ranks == static_cast<int>(members.size()), "a group's plan has one GPU per member");
  if (out.empty()) out.resize(plan.phases.size());
  CTWIN_ASSERT(out.size() == plan.phases.size(), "groups of one shape share a plan");
  for (std::size_t p = 0; p < plan.phases.size(); ++p) {
    const auto& phase = plan.phases[p];
    out[p].repeat = phase.repeat;
    for (const auto& t : phase.transfers) {
      const auto src = gpu_of(stage, members[static_cast<std::size_t>(t.src)]);
      const auto dst = gpu_of(stage, members[static_cast<std::size_t>(t.dst)]);
      fabric::RouteOptions route = t.route;
      // The plan's nodes are the group's members per node; on the cluster PXN is decided by the
      // real nodes (the same ones wherever the stride divides a node).
      route.pxn = pxn_ && fabric_->node_of(src) != fabric_->node_of(dst) && route.leg == fabric::SwitchLeg::kWhole;
      out[p].flows.push_back({src, dst, t.fraction, route, group_class});
    }
  }
}

std::uint32_t SharedFabricExecutor::class_of(const CommCall& call, const collectives::Plan& plan, int stage,
                                            std::int64_t leader, Classes& classes) {
  // The group's predicted time over the op's (exactly 1 where laid out like the reference).
  const double ratio = plans_of(stage).placed_time(call, SimTime::from_seconds(1.0), stage, leader).seconds();
  if (ratio == 1.0) return 0;
  for (std::uint32_t c = 1; c < classes.size(); ++c) {
    if (classes[c].ratio == ratio) return c;
  }
  const TrafficKey key{static_cast<int>(call.op), call.group.size, call.group.stride, static_cast<int>(plan.algorithm),
                       stage, leader};
  const Traffic* alone = leader == kEveryGroup ? nullptr : &collective_traffic(call, plan, stage, leader);
  classes.push_back({ratio, key, alone});
  return static_cast<std::uint32_t>(classes.size() - 1);
}

const SharedFabricExecutor::Traffic& SharedFabricExecutor::collective_traffic(const CommCall& call,
                                                                              const collectives::Plan& plan, int stage,
                                                                              std::int64_t leader) {
  const TrafficKey key{static_cast<int>(call.op), call.group.size, call.group.stride, static_cast<int>(plan.algorithm),
                       stage, leader};
  if (const auto it = traffic_.find(key); it != traffic_.end()) return it->second;
  Traffic& traffic = traffic_[key];
  Classes classes{GroupClass{}};
  if (leader != kEveryGroup) {
    // Paced on itself when it is not laid out like the reference: its own traffic is `traffic`.
    const double ratio = plans_of(stage).placed_time(call, SimTime::from_seconds(1.0), stage, leader).seconds();
    append_group(plan, call, stage, leader, traffic, ratio == 1.0 ? 0 : 1);
    if (ratio != 1.0) {
      classes.front().ratio = 0;  // no group of the reference's layout: its time does not bound the op
      classes.push_back({ratio, key, &traffic});
    }
  } else if (call.group.size * call.group.stride > stage_gpus_) {
    append_group(plan, call, stage, 0, traffic);
  } else {
    // Groups tile blocks of size·stride ranks: when those divide the sample, the groups with a
    // leader inside it are exactly the groups with every member inside it.
    const std::int64_t span = call.group.size * call.group.stride;
    const std::int64_t ranks = sample_gpus_ % span == 0 ? sample_gpus_ : stage_gpus_;
    const auto first = group_members(call.group, 0);
    const int first_node = fabric_->node_of(gpu_of(stage, 0));
    const bool in_node = fabric_->node_of(gpu_of(stage, first.front())) == fabric_->node_of(gpu_of(stage, first.back()));
    bool reference = false;
    for (const std::int64_t l : group_leaders(call.group, ranks)) {
      if (in_node && fabric_->node_of(gpu_of(stage, l)) != first_node) {
        // Where the stage's first group fits in a node, so do the others, unless the placement
        // makes one straddle two (contiguous ranks on 72-GPU domains): that one is put on too.
        const auto members = group_members(call.group, l);
        const int node = fabric_->node_of(gpu_of(stage, l));
        const bool inside = std::all_of(members.begin(), members.end(),
                                        [&](std::int64_t m) { return fabric_->node_of(gpu_of(stage, m)) == node; });
        if (inside) continue;
      }
      const std::uint32_t group_class = class_of(call, plan, stage, l, classes);
      reference = reference || group_class == 0;
      append_group(plan, call, stage, l, traffic, group_class);
    }
    if (!reference) classes.front().ratio = 0;
  }
  if (classes.size() > 1) classes_[key] = std::move(classes);
  return traffic;
}

const SharedFabricExecutor::Traffic& SharedFabricExecutor::send_traffic(int from, int to, std::int64_t local) {
  const TrafficKey key{-1, from, to, 0, local, 0};
  if (const auto it = traffic_.find(key); it != traffic_.end()) return it->second;
  Traffic& traffic = traffic_[key];
  traffic.resize(1);
  const std::int64_t first = local == kEveryGroup ? 0 : local;
  const std::int64_t last = local == kEveryGroup ? sample_gpus_ : local + 1;
  for (std::int64_t l = first; l < last; ++l) {
    const auto src = gpu_of(from, l);
    const auto dst = gpu_of(to, l);
    for (int f = 0; f < kFlowsPerPair; ++f) {
      fabric::RouteOptions route;
      route.flow_label = static_cast<std::uint64_t>(f);
      route.pxn = pxn_ && fabric_->node_of(src) != fabric_->node_of(dst);
      traffic[0].flows.push_back({src, dst, 1.0 / kFlowsPerPair, route});
    }
  }
  return traffic;
}

double SharedFabricExecutor::alone_s(const Traffic& traffic, double size) {
  // One probe model for every pace: a flow model of a large fabric holds tens of MB of link
  // state, and building one per probe between the replay's allocations fragments the heap.
  if (!probe_network_) probe_network_ = network::make_network_model(network::ModelKind::kFlow, *pace_fabric_, probe_simulator_);
  const SimTime start = probe_simulator_.now();
  for (const Phase& phase : traffic) {
    for (const Flow& f : phase.flows) {
      const auto bytes = static_cast<std::int64_t>(std::llround(f.fraction * phase.repeat * size));
      probe_network_->start_transfer({f.src, f.dst, Bytes(bytes), f.route}, [] {});
    }
    probe_network_->run();
  }
  return (probe_simulator_.now() - start).seconds();
}

const SharedFabricExecutor::Pace& SharedFabricExecutor::pace_of(const TrafficKey& one_group, const Traffic& traffic) {
  if (const auto it = paces_.find(one_group); it != paces_.end()) return it->second;
  std::vector<double> fractions;
  for (const Phase& phase : traffic) {
    for (const Flow& f : phase.flows) fractions.push_back(f.fraction * phase.repeat);
  }
  const double probe = probe_size(fractions);
  Pace pace;
  pace.fixed_s = alone_s(traffic, 0);
  pace.per_byte_s = (alone_s(traffic, probe) - pace.fixed_s) / probe;
  CTWIN_ASSERT(pace.per_byte_s > 0, "traffic between distinct GPUs takes time per byte");
  return paces_[one_group] = pace;
}

void SharedFabricExecutor::launch(const Traffic& traffic, const Classes* classes, const Pace& pace, SimTime isolated,
                                  Done done) {
  double longest = classes != nullptr ? classes->front().ratio : 1;
  if (classes != nullptr) {
    for (std::size_t c = 1; c < classes->size(); ++c) longest = std::max(longest, (*classes)[c].ratio);
  }
  const SimTime deadline =
      simulator_.now() + (longest == 1 ? isolated : SimTime::from_seconds(isolated.seconds() * longest));
  if (traffic.empty()) {
    simulator_.schedule_at(deadline, std::move(done));
    return;
  }
  std::uint32_t slot = 0;
  if (free_slots_.empty()) {
    slot = static_cast<std::uint32_t>(pending_.size());
    pending_.emplace_back();
  } else {
    slot = free_slots_.back();
    free_slots_.pop_back();
  }
  Pending& p = pending_[slot];
  p.traffic = &traffic;
  p.phase = 0;
  p.left = 0;
  p.deadline = deadline;
  p.done = std::move(done);
  // Collective bytes that one group alone moves in its predicted time, per class: the op's
  // `isolated` for the reference, `ratio` times it for a group laid out otherwise. Filled in the
  // slot's own vector, so that a reused slot launches without allocating.
  p.sizes.assign(1, std::max(0.0, (isolated.seconds() - pace.fixed_s) / pace.per_byte_s));
  if (classes != nullptr) {
    for (std::size_t c = 1; c < classes->size(); ++c) {
      const GroupClass& g = (*classes)[c];
      const Pace& own = pace_of(g.one_group, *g.traffic);
      p.sizes.push_back(std::max(0.0, (isolated.seconds() * g.ratio - own.fixed_s) / own.per_byte_s));
    }
  }
  start_phase(slot);
}

void SharedFabricExecutor::start_phase(std::uint32_t slot) {
  Pending& p = pending_[slot];
  const Phase& phase = (*p.traffic)[p.phase];
  p.left = phase.flows.size();
  const int index = static_cast<int>(p.phase);
  for (const Flow& f : phase.flows) {
    const Bytes bytes(static_cast<std::int64_t>(std::llround(f.fraction * phase.repeat * p.sizes[f.group_class])));
    if (log_) log_->push_back({index, phase.repeat, f.src, f.dst, f.fraction, bytes, f.route, simulator_.now()});
    if (count_spine_) {
      if (f.crosses_spine < 0) {
        const auto links = fabric::route(*fabric_, f.src, f.dst, f.route);
        f.crosses_spine = std::any_of(links.begin(), links.end(), [this](fabric::LinkId l) {
                            return fabric_->link(l).kind == fabric::LinkKind::kLeafSpine;
                          }) ? 1 : 0;
      }
      if (f.crosses_spine > 0) cross_spine_ += bytes.count();
    }
    if (link_bytes_ != nullptr) {
      if (f.links.empty()) f.links = fabric::route(*fabric_, f.src, f.dst, f.route);
      for (const fabric::LinkId l : f.links) (*link_bytes_)[l] += static_cast<double>(bytes.count());
    }
    bytes_started_ += bytes.count();
    network_->start_transfer({f.src, f.dst, bytes, f.route}, [this, slot] { flow_done(slot); });
  }
}

void SharedFabricExecutor::flow_done(std::uint32_t slot) {
  Pending& p = pending_[slot];
  if (--p.left > 0) return;
  if (++p.phase < p.traffic->size()) {
    start_phase(slot);
    return;
  }
  simulator_.schedule_at(std::max(simulator_.now(), p.deadline), std::move(p.done));
  free_slots_.push_back(slot);
}

void SharedFabricExecutor::start_collective(const CommCall& call, SimTime isolated, int stage, std::int64_t leader,
                                            Done done) {
  const auto plan = plans_of(stage).plan(call);
  if (!plan) {
    simulator_.schedule_in(isolated, std::move(done));
    return;
  }
  const Traffic& traffic = collective_traffic(call, *plan, stage, leader);
  const int paced_by = pace_stage(stage);
  const Traffic& one_group = collective_traffic(call, *plan, paced_by, 0);
  const TrafficKey key{static_cast<int>(call.op), call.group.size, call.group.stride, static_cast<int>(plan->algorithm),
                       paced_by, 0};
  const auto classes = classes_.find({static_cast<int>(call.op), call.group.size, call.group.stride,
                                      static_cast<int>(plan->algorithm), stage, leader});
  const Classes* group_classes = classes == classes_.end() ? nullptr : &classes->second;
  const Pace& pace = pace_of(key, one_group);
  if (const auto predicted_on = plans_.spanning_group_fabric(call)) {
    // Issue 38, as for the sends below: a group spanning sites is predicted on a node slice with
    // the slice's share of the DCI. Paced on the whole build, where one group alone has all of
    // the DCI, that time became several times the group's bytes, and every slice's groups then
    // shared the DCI again here. Paced on the fabric it was predicted on, each group carries its
    // own bytes, and the DCI's sharing is the replay's alone.
    const Pace& own = spanning_pace(key, *plan, *predicted_on);
    const double size = std::max(0.0, (isolated.seconds() - own.fixed_s) / own.per_byte_s);
    launch(traffic, group_classes, pace, SimTime::from_seconds(pace.fixed_s + size * pace.per_byte_s), std::move(done));
    return;
  }
  launch(traffic, group_classes, pace, isolated, std::move(done));
}

const SharedFabricExecutor::Pace& SharedFabricExecutor::spanning_pace(const TrafficKey& key,
                                                                      const collectives::Plan& plan,
                                                                      const fabric::Fabric& predicted_on) {
  const TrafficKey own_key{-3 - std::get<0>(key), std::get<1>(key), std::get<2>(key), std::get<3>(key), 0, 0};
  if (const auto it = paces_.find(own_key); it != paces_.end()) return it->second;
  // The plan's GPU g is GPU g of the fabric it was made on: its phases in order, as alone_s.
  const auto plan_alone_s = [&plan, &predicted_on](double size) {
    engine::Simulator simulator;
    const auto model = network::make_network_model(network::ModelKind::kFlow, predicted_on, simulator);
    for (const auto& phase : plan.phases) {
      for (const auto& t : phase.transfers) {
        const auto bytes = static_cast<std::int64_t>(std::llround(t.fraction * phase.repeat * size));
        model->start_transfer({t.src, t.dst, Bytes(bytes), t.route}, [] {});
      }
      model->run();
    }
    return simulator.now().seconds();
  };
  std::vector<double> fractions;
  for (const auto& phase : plan.phases) {
    for (const auto& t : phase.transfers) fractions.push_back(t.fraction * phase.repeat);
  }
  const double probe = probe_size(fractions);
  Pace pace;
  pace.fixed_s = plan_alone_s(0);
  pace.per_byte_s = (plan_alone_s(probe) - pace.fixed_s) / probe;
  CTWIN_ASSERT(pace.per_byte_s > 0, "a collective between sites takes time per byte");
  return paces_[own_key] = pace;
}

const SharedFabricExecutor::Pace& SharedFabricExecutor::crossing_pace(int from, int to,
                                                                      const fabric::Fabric& predicted_on) {
  const TrafficKey key{-2, from, to, 0, 0, 0};
  if (const auto it = paces_.find(key); it != paces_.end()) return it->second;
  // The pair as predicted: GPU 0 (first site) to GPU 1 (second site) of a two-GPU build, one
  // flow, as the send's prediction moves it (two flows on two of the slice's DCI links measured
  // twice its rate, and so paced twice its bytes).
  const auto pair_alone_s = [&predicted_on](double size) {
    engine::Simulator simulator;
    const auto model = network::make_network_model(network::ModelKind::kFlow, predicted_on, simulator);
    model->start_transfer({0, 1, Bytes(std::llround(size)), fabric::RouteOptions{}}, [] {});
    model->run();
    return simulator.now().seconds();
  };
  const double probe = probe_size({1.0});
  Pace pace;
  pace.fixed_s = pair_alone_s(0);
  pace.per_byte_s = (pair_alone_s(probe) - pace.fixed_s) / probe;
  CTWIN_ASSERT(pace.per_byte_s > 0, "a send between sites takes time per byte");
  return paces_[key] = pace;
}

void SharedFabricExecutor::start_send(const CommCall& call, SimTime isolated, int from, int to, std::int64_t local,
                                      Done done) {
  const Traffic& traffic = send_traffic(from, to, local);
  const Traffic& first_rank = send_traffic(from, to, 0);
  const Pace& pace = pace_of({-1, from, to, 0, 0, 0}, first_rank);
  // A send between sites lasts at least its time across the DCI (isolated on one site).
  const SimTime time = plans_.send_time(call, isolated, from, to);
  if (const auto predicted_on = plans_.crossing_send_fabric(call, from, to)) {
    // Issue 38: a crossing pair is predicted with its node slice's share of the DCI. Paced on the
    // whole build, that share became bytes (4 to 8 times the send's), and the other slices, on
    // the fabric here, then took the DCI again: 97.95 s for the 405B step on two sites. Paced on
    // the fabric it was predicted on, the traffic carries the send's own bytes (and protocol
    // overhead), and its time is the pair's on the build, the DCI's sharing left to the replay.
    const Pace& own = crossing_pace(from, to, *predicted_on);
    const double size = std::max(0.0, (time.seconds() - own.fixed_s) / own.per_byte_s);
    launch(traffic, nullptr, pace, SimTime::from_seconds(pace.fixed_s + size * pace.per_byte_s), std::move(done));
    return;
  }
  launch(traffic, nullptr, pace, time, std::move(done));
}

}  // namespace ctwin::replay
