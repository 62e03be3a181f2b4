#include "ctwin/replay/shared_fabric.hpp"

#include <algorithm>
#include <cmath>

#include "ctwin/core/error.hpp"

namespace ctwin::replay {
namespace {

using collectives::Op;

// Flows per GPU pair, for ECMP: NCCL's default NCCL_NCHANNELS_PER_NET_PEER (NCCL environment
// variable documentation) gives a pair of ranks two channels, each its own connection.
constexpr int kFlowsPerPair = 2;

// Large enough that the fluid part dwarfs latencies when the pace is measured.
constexpr std::int64_t kProbeBytes = std::int64_t{256} << 20;

int as_gpu(std::int64_t rank) { return static_cast<int>(rank); }

fabric::RouteOptions route(const bool pxn, int flow) {
  fabric::RouteOptions options;
  options.flow_label = static_cast<std::uint64_t>(flow);
  options.pxn = pxn;
  return options;
}

}  // namespace

SharedFabricExecutor::SharedFabricExecutor(std::shared_ptr<const fabric::Fabric> built, std::int64_t stage_gpus,
                                           engine::Simulator& simulator, std::shared_ptr<const fabric::Fabric> healthy)
    : fabric_(std::move(built)),
      pace_fabric_(healthy ? std::move(healthy) : fabric_),
      stage_gpus_(stage_gpus),
      pxn_(fabric_->spec().server.nvlink.has_value()),
      simulator_(simulator),
      network_(network::make_network_model(network::ModelKind::kFlow, *fabric_, simulator)) {}

SharedFabricExecutor::~SharedFabricExecutor() = default;

// Between nodes NCCL moves data over NVLink to the GPU on the destination's rail first (PXN),
// as the collective plans do; inside a node, and without NVLink, the route is direct.
void SharedFabricExecutor::append_edge(fabric::GpuId src, fabric::GpuId dst, Pattern& out) const {
  out.push_back({src, dst, pxn_ && fabric_->node_of(src) != fabric_->node_of(dst)});
}

void SharedFabricExecutor::append_group(const CommCall& call, int stage, std::int64_t leader, Pattern& out) const {
  const std::int64_t base = stage * stage_gpus_;
  const auto members = group_members(call.group, leader);
  const auto n = members.size();
  if (call.op == Op::kAlltoall) {
    const int first_node = fabric_->node_of(as_gpu(base + members.front()));
    if (first_node == fabric_->node_of(as_gpu(base + members.back()))) {
      for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t j = 0; j < n; ++j) {
          if (i != j) append_edge(as_gpu(base + members[i]), as_gpu(base + members[j]), out);
        }
      }
      return;
    }
    // Across nodes, PXN funnels everything a node sends to member j through the node's GPU on
    // j's rail: one flow per (sending node, receiving member), leaving from that GPU. The
    // NVLink legs to it are left off: NVLink is several times faster than the NIC they feed.
    std::vector<std::pair<int, fabric::GpuId>> nodes;  // node, its first member
    for (const auto m : members) {
      const auto gpu = as_gpu(base + m);
      if (nodes.empty() || nodes.back().first != fabric_->node_of(gpu)) nodes.emplace_back(fabric_->node_of(gpu), gpu);
    }
    const int per_node = fabric_->gpus_per_node();
    for (const auto m : members) {
      const auto dst = as_gpu(base + m);
      for (const auto& [node, first_member] : nodes) {
        if (node == fabric_->node_of(dst)) continue;
        // A partly built last node may lack the GPU on that rail: send from a member instead.
        const fabric::GpuId on_rail = node * per_node + fabric_->local_index(dst);
        append_edge(on_rail < fabric_->gpus() ? on_rail : first_member, dst, out);
      }
    }
    return;
  }
  for (std::size_t j = 0; j < n; ++j) append_edge(as_gpu(base + members[j]), as_gpu(base + members[(j + 1) % n]), out);
}

const SharedFabricExecutor::Pattern& SharedFabricExecutor::collective_pattern(const CommCall& call, int stage,
                                                                              std::int64_t leader) {
  const PatternKey key{static_cast<int>(call.op), call.group.size, call.group.stride, stage, leader};
  if (const auto it = patterns_.find(key); it != patterns_.end()) return it->second;
  Pattern& pattern = patterns_[key];
  if (leader != kEveryGroup) {
    append_group(call, stage, leader, pattern);
  } else if (call.group.size * call.group.stride > stage_gpus_) {
    append_group(call, stage, 0, pattern);
  } else {
    const std::int64_t base = stage * stage_gpus_;
    const auto first = group_members(call.group, 0);
    const bool in_node = fabric_->node_of(as_gpu(base + first.front())) == fabric_->node_of(as_gpu(base + first.back()));
    for (const std::int64_t l : group_leaders(call.group, stage_gpus_)) {
      if (in_node && fabric_->node_of(as_gpu(base + l)) != fabric_->node_of(as_gpu(base))) continue;
      append_group(call, stage, l, pattern);
    }
  }
  return pattern;
}

const SharedFabricExecutor::Pattern& SharedFabricExecutor::send_pattern(int from, int to, std::int64_t local) {
  const PatternKey key{-1, from, to, local, 0};
  if (const auto it = patterns_.find(key); it != patterns_.end()) return it->second;
  Pattern& pattern = patterns_[key];
  const std::int64_t first = local == kEveryGroup ? 0 : local;
  const std::int64_t last = local == kEveryGroup ? stage_gpus_ : local + 1;
  for (std::int64_t l = first; l < last; ++l) append_edge(as_gpu(from * stage_gpus_ + l), as_gpu(to * stage_gpus_ + l), pattern);
  return pattern;
}

double SharedFabricExecutor::alone_s(const Pattern& pattern, std::int64_t bytes) {
  // One probe model for every pace: a flow model of a large fabric holds tens of MB of link
  // state, and building one per probe between the replay's allocations fragments the heap.
  if (!probe_network_) probe_network_ = network::make_network_model(network::ModelKind::kFlow, *pace_fabric_, probe_simulator_);
  const SimTime start = probe_simulator_.now();
  for (const Edge& e : pattern) {
    for (int f = 0; f < kFlowsPerPair; ++f) {
      probe_network_->start_transfer({e.src, e.dst, Bytes(bytes / kFlowsPerPair), route(e.pxn, f)}, [] {});
    }
  }
  probe_network_->run();
  return (probe_simulator_.now() - start).seconds();
}

const SharedFabricExecutor::Pace& SharedFabricExecutor::pace_of(const PatternKey& one_group, const Pattern& pattern) {
  if (const auto it = paces_.find(one_group); it != paces_.end()) return it->second;
  Pace pace;
  pace.fixed_s = alone_s(pattern, 0);
  pace.per_byte_s = (alone_s(pattern, kProbeBytes) - pace.fixed_s) / static_cast<double>(kProbeBytes);
  CTWIN_ASSERT(pace.per_byte_s > 0, "traffic between distinct GPUs takes time per byte");
  return paces_[one_group] = pace;
}

void SharedFabricExecutor::launch(const Pattern& pattern, const Pace& pace, SimTime isolated, Done done) {
  const SimTime deadline = simulator_.now() + isolated;
  if (pattern.empty()) {
    simulator_.schedule_at(deadline, std::move(done));
    return;
  }
  // Bytes per transfer that one group alone moves in `isolated`.
  const double bytes = std::max(0.0, (isolated.seconds() - pace.fixed_s) / pace.per_byte_s);
  std::uint32_t slot = 0;
  if (free_slots_.empty()) {
    slot = static_cast<std::uint32_t>(pending_.size());
    pending_.emplace_back();
  } else {
    slot = free_slots_.back();
    free_slots_.pop_back();
  }
  pending_[slot] = {pattern.size() * kFlowsPerPair, deadline, std::move(done)};
  const Bytes per_flow(static_cast<std::int64_t>(std::llround(bytes)) / kFlowsPerPair);
  for (const Edge& e : pattern) {
    for (int f = 0; f < kFlowsPerPair; ++f) {
      network_->start_transfer({e.src, e.dst, per_flow, route(e.pxn, f)}, [this, slot] { flow_done(slot); });
    }
  }
}

void SharedFabricExecutor::flow_done(std::uint32_t slot) {
  Pending& p = pending_[slot];
  if (--p.left > 0) return;
  simulator_.schedule_at(std::max(simulator_.now(), p.deadline), std::move(p.done));
  free_slots_.push_back(slot);
}

void SharedFabricExecutor::start_collective(const CommCall& call, SimTime isolated, int stage, std::int64_t leader,
                                            Done done) {
  const Pattern& pattern = collective_pattern(call, stage, leader);
  const Pattern& one_group = collective_pattern(call, 0, 0);
  launch(pattern, pace_of({static_cast<int>(call.op), call.group.size, call.group.stride, 0, 0}, one_group), isolated,
         std::move(done));
}

void SharedFabricExecutor::start_send(const CommCall&, SimTime isolated, int from, int to, std::int64_t local, Done done) {
  const Pattern& pattern = send_pattern(from, to, local);
  const Pattern& first_rank = send_pattern(from, to, 0);
  launch(pattern, pace_of({-1, from, to, 0, 0}, first_rank), isolated, std::move(done));
}

}  // namespace ctwin::replay
