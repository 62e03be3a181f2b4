#include "ctwin/replay/comm_groups.hpp"

#include <algorithm>
#include <numeric>
#include <string>
#include <utility>

#include "ctwin/collectives/predict.hpp"
#include "ctwin/core/error.hpp"

namespace ctwin::replay {
namespace {

// `k` GPUs of each server with their share of its NICs, PCIe switches and sockets: the members
// of a group that spans nodes with k members in each (NCCL then crosses NVLink inside a node and
// uses the k members' NICs between nodes). k = 1 is one rail's slice of a rail-optimized fabric.
fabric::ClusterSpec gpus_per_node_slice(fabric::ClusterSpec spec, int k) {
  auto& server = spec.server;
  const int gpus = server.gpus;
  server.nics.count = std::max(1, server.nics.count * k / gpus);
  server.pcie_switches = std::min(server.pcie_switches, k);
  server.cpus = std::min(server.cpus, k);
  if (server.cpus == 1) server.cpu_link.reset();
  server.gpus = k;
  spec.fabric.rails_per_leaf = std::gcd(spec.fabric.rails_per_leaf, server.nics.count);
  spec.name += k == 1 ? " (one rail's slice)" : " (" + std::to_string(k) + " GPUs of each node)";
  return spec;
}

}  // namespace

std::int64_t group_leader(GroupShape group, std::int64_t local_rank) {
  const std::int64_t block = group.size * group.stride;
  return local_rank / block * block + local_rank % group.stride;
}

std::vector<std::int64_t> group_members(GroupShape group, std::int64_t leader) {
  std::vector<std::int64_t> members;
  members.reserve(static_cast<std::size_t>(group.size));
  for (std::int64_t j = 0; j < group.size; ++j) members.push_back(leader + j * group.stride);
  return members;
}

std::vector<std::int64_t> group_leaders(GroupShape group, std::int64_t stage_gpus) {
  std::vector<std::int64_t> leaders;
  const std::int64_t block = group.size * group.stride;
  for (std::int64_t b = 0; b + block <= stage_gpus; b += block) {
    for (std::int64_t o = 0; o < group.stride; ++o) leaders.push_back(b + o);
  }
  return leaders;
}

std::optional<CollectivePrediction> CollectiveCache::find(const Key& key) const {
  const std::lock_guard lock(mutex_);
  const auto it = times_.find(key);
  if (it == times_.end()) return std::nullopt;
  return it->second;
}

void CollectiveCache::insert(const Key& key, CollectivePrediction prediction) {
  const std::lock_guard lock(mutex_);
  times_.emplace(key, prediction);
}

std::shared_ptr<const collectives::Plan> CollectiveCache::plan(const PlanKey& key,
                                                               const std::function<collectives::Plan()>& make) {
  const std::lock_guard lock(mutex_);
  auto& slot = plans_[key];
  if (!slot) slot = std::make_shared<const collectives::Plan>(make());
  return slot;
}

std::shared_ptr<const fabric::Fabric> CollectiveCache::fabric(const FabricKey& key,
                                                              const std::function<fabric::Fabric()>& build) {
  const std::lock_guard lock(mutex_);
  auto& slot = fabrics_[key];
  if (!slot) slot = std::make_shared<const fabric::Fabric>(build());
  return slot;
}

CollectiveTimes::CollectiveTimes(fabric::ClusterSpec cluster, network::ModelKind network, bool free,
                                 std::shared_ptr<CollectiveCache> cache, collectives::CollectiveTuning tuning)
    : cluster_(std::move(cluster)),
      network_(network),
      free_(free),
      tuning_(tuning),
      cache_(cache ? std::move(cache) : std::make_shared<CollectiveCache>()) {}
CollectiveTimes::~CollectiveTimes() = default;
CollectiveTimes::CollectiveTimes(CollectiveTimes&&) noexcept = default;

std::shared_ptr<const fabric::Fabric> CollectiveTimes::fabric_for(GroupShape group) {
  const std::int64_t node = cluster_.server.gpus;
  const bool in_node = group.stride * group.size <= node;
  // Members per node of a group spanning nodes: consecutive members are `stride` GPUs apart.
  const std::int64_t per_node = in_node ? 0 : std::clamp<std::int64_t>(node / group.stride, 1, group.size);
  return cache_->fabric({per_node, group.size}, [&] {
    return fabric::Fabric(in_node ? cluster_ : gpus_per_node_slice(cluster_, static_cast<int>(per_node)),
                          static_cast<int>(group.size));
  });
}

CollectivePrediction CollectiveTimes::predict(collectives::Op op, GroupShape group, Bytes size, int element_bytes) {
  if (free_ || group.size <= 1 || size.count() <= 0) return {};
  const auto key = std::tuple{static_cast<int>(op), group, size.count(), element_bytes};
  if (const auto known = cache_->find(key)) return *known;
  collectives::CollectiveQuery query;
  query.op = op;
  // nccl-tests sizes are whole elements; round the buffer up to one.
  const std::int64_t elements = std::max<std::int64_t>(1, (size.count() + element_bytes - 1) / element_bytes);
  std::int64_t rounded = elements * element_bytes;
  // all_gather / reduce_scatter buffers hold a whole number of per-rank shards.
  if (op == collectives::Op::kAllGather || op == collectives::Op::kReduceScatter) {
    const std::int64_t unit = group.size * element_bytes;
    rounded = (rounded + unit - 1) / unit * unit;
  }
  query.sizes = {Bytes(rounded)};
  query.element_bytes = element_bytes;
  query.network = network_;
  query.tuning = tuning_;
  const auto result = collectives::predict_collective(*fabric_for(group), query);
  CTWIN_ASSERT(result.rows.size() == 1, "one size asked, one row returned");
  ++predictions_;
  const CollectivePrediction prediction{result.rows.front().time, result.rows.front().algorithm};
  cache_->insert(key, prediction);
  return prediction;
}

std::shared_ptr<const collectives::Plan> CollectiveTimes::plan(const CommCall& call) {
  if (free_ || call.group.size <= 1 || call.size.count() <= 0) return nullptr;
  const collectives::Algorithm algorithm = predict(call.op, call.group, call.size, call.element_bytes).algorithm;
  const auto built = fabric_for(call.group);
  return cache_->plan({static_cast<int>(call.op), call.group, static_cast<int>(algorithm)}, [&] {
    // The channels predict_collective planned with.
    const int channels = tuning_.channels > 0 ? tuning_.channels : collectives::default_channels(*built);
    return collectives::make_plan(call.op, algorithm, *built, channels);
  });
}

}  // namespace ctwin::replay
