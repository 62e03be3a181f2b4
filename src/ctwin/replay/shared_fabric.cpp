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

// Between nodes NCCL moves data over NVLink to the GPU on the destination's rail first (PXN),
// as the collective plans do; inside a node, and without NVLink, the route is direct.
fabric::RouteOptions route(const fabric::Fabric& fabric, fabric::GpuId src, fabric::GpuId dst, int flow) {
  fabric::RouteOptions options;
  options.flow_label = static_cast<std::uint64_t>(flow);
  options.pxn = fabric.node_of(src) != fabric.node_of(dst) && fabric.spec().server.nvlink.has_value();
  return options;
}

}  // namespace

SharedFabricExecutor::SharedFabricExecutor(const fabric::ClusterSpec& cluster, std::int64_t gpus,
                                           std::int64_t stage_gpus, engine::Simulator& simulator)
    : fabric_(cluster, static_cast<int>(gpus)), stage_gpus_(stage_gpus), simulator_(simulator),
      network_(network::make_network_model("flow", fabric_, simulator)) {}

SharedFabricExecutor::~SharedFabricExecutor() = default;

void SharedFabricExecutor::append_group(const CommCall& call, int stage, std::int64_t leader, Pairs& out) const {
  const std::int64_t base = stage * stage_gpus_;
  const auto members = group_members(call.group, leader);
  const auto n = members.size();
  if (call.op == Op::kAlltoall) {
    const int first_node = fabric_.node_of(as_gpu(base + members.front()));
    if (first_node == fabric_.node_of(as_gpu(base + members.back()))) {
      for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t j = 0; j < n; ++j) {
          if (i != j) out.emplace_back(as_gpu(base + members[i]), as_gpu(base + members[j]));
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
      if (nodes.empty() || nodes.back().first != fabric_.node_of(gpu)) nodes.emplace_back(fabric_.node_of(gpu), gpu);
    }
    const int per_node = fabric_.gpus_per_node();
    for (const auto m : members) {
      const auto dst = as_gpu(base + m);
      for (const auto& [node, first_member] : nodes) {
        if (node == fabric_.node_of(dst)) continue;
        // A partly built last node may lack the GPU on that rail: send from a member instead.
        const fabric::GpuId on_rail = node * per_node + fabric_.local_index(dst);
        out.emplace_back(on_rail < fabric_.gpus() ? on_rail : first_member, dst);
      }
    }
    return;
  }
  for (std::size_t j = 0; j < n; ++j) out.emplace_back(as_gpu(base + members[j]), as_gpu(base + members[(j + 1) % n]));
}

double SharedFabricExecutor::alone_s(const Pairs& pairs, std::int64_t bytes) const {
  engine::Simulator simulator;
  const auto network = network::make_network_model("flow", fabric_, simulator);
  for (const auto& [src, dst] : pairs) {
    for (int f = 0; f < kFlowsPerPair; ++f) {
      network->start_transfer({src, dst, Bytes(bytes / kFlowsPerPair), route(fabric_, src, dst, f)}, [] {});
    }
  }
  network->run();
  return simulator.now().seconds();
}

const SharedFabricExecutor::Pace& SharedFabricExecutor::pace_of(const CommCall& call, int from_stage, int to_stage) {
  const bool send = from_stage != to_stage;
  const auto key = send ? std::tuple{-1, std::int64_t{from_stage}, std::int64_t{to_stage}, 0}
                        : std::tuple{static_cast<int>(call.op), call.group.size, call.group.stride, 1};
  if (const auto it = paces_.find(key); it != paces_.end()) return it->second;
  Pairs pairs;
  if (send) {
    pairs.emplace_back(as_gpu(from_stage * stage_gpus_), as_gpu(to_stage * stage_gpus_));
  } else {
    append_group(call, from_stage, 0, pairs);
  }
  Pace pace;
  pace.fixed_s = alone_s(pairs, 0);
  pace.per_byte_s = (alone_s(pairs, kProbeBytes) - pace.fixed_s) / static_cast<double>(kProbeBytes);
  CTWIN_ASSERT(pace.per_byte_s > 0, "traffic between distinct GPUs takes time per byte");
  return paces_[key] = pace;
}

void SharedFabricExecutor::launch(const Pairs& pairs, const Pace& pace, SimTime isolated, Done done) {
  const SimTime deadline = simulator_.now() + isolated;
  if (pairs.empty()) {
    simulator_.schedule_at(deadline, std::move(done));
    return;
  }
  // Bytes per transfer that one group alone moves in `isolated`.
  const double bytes = std::max(0.0, (isolated.seconds() - pace.fixed_s) / pace.per_byte_s);
  struct Pending {
    std::size_t left;
    SimTime deadline;
    Done done;
  };
  auto pending = std::make_shared<Pending>(Pending{pairs.size() * kFlowsPerPair, deadline, std::move(done)});
  const Bytes per_flow(static_cast<std::int64_t>(std::llround(bytes)) / kFlowsPerPair);
  for (const auto& [src, dst] : pairs) {
    for (int f = 0; f < kFlowsPerPair; ++f) {
      network_->start_transfer({src, dst, per_flow, route(fabric_, src, dst, f)}, [this, pending] {
        if (--pending->left > 0) return;
        simulator_.schedule_at(std::max(simulator_.now(), pending->deadline), std::move(pending->done));
      });
    }
  }
}

void SharedFabricExecutor::start_collective(const CommCall& call, SimTime isolated, int stage, std::int64_t leader,
                                            Done done) {
  Pairs pairs;
  if (leader != kEveryGroup) {
    append_group(call, stage, leader, pairs);
  } else if (call.group.size * call.group.stride > stage_gpus_) {
    append_group(call, stage, 0, pairs);
  } else {
    const std::int64_t base = stage * stage_gpus_;
    const auto first = group_members(call.group, 0);
    const bool in_node = fabric_.node_of(as_gpu(base + first.front())) == fabric_.node_of(as_gpu(base + first.back()));
    for (const std::int64_t l : group_leaders(call.group, stage_gpus_)) {
      if (in_node && fabric_.node_of(as_gpu(base + l)) != fabric_.node_of(as_gpu(base))) continue;
      append_group(call, stage, l, pairs);
    }
  }
  launch(pairs, pace_of(call, stage, stage), isolated, std::move(done));
}

void SharedFabricExecutor::start_send(const CommCall& call, SimTime isolated, int from, int to, std::int64_t local,
                                      Done done) {
  Pairs pairs;
  const std::int64_t first = local == kEveryGroup ? 0 : local;
  const std::int64_t last = local == kEveryGroup ? stage_gpus_ : local + 1;
  for (std::int64_t l = first; l < last; ++l) pairs.emplace_back(as_gpu(from * stage_gpus_ + l), as_gpu(to * stage_gpus_ + l));
  launch(pairs, pace_of(call, from, to), isolated, std::move(done));
}

}  // namespace ctwin::replay
