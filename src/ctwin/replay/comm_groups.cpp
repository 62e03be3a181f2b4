#include "ctwin/replay/comm_groups.hpp"

#include <algorithm>
#include <utility>

#include "ctwin/collectives/predict.hpp"
#include "ctwin/core/error.hpp"

namespace ctwin::replay {
namespace {

fabric::ClusterSpec one_gpu_per_node(fabric::ClusterSpec spec) {
  spec.server.gpus = 1;
  spec.server.nics.count = 1;
  spec.server.cpus = 1;
  spec.server.cpu_link.reset();
  spec.server.pcie_switches = std::min(spec.server.pcie_switches, 1);
  spec.fabric.rails_per_leaf = 1;
  spec.name += " (one rail's slice)";
  return spec;
}

}  // namespace

CollectiveTimes::CollectiveTimes(fabric::ClusterSpec cluster, std::string network, bool free)
    : cluster_(std::move(cluster)), slice_(one_gpu_per_node(cluster_)), network_(std::move(network)), free_(free) {}
CollectiveTimes::~CollectiveTimes() = default;
CollectiveTimes::CollectiveTimes(CollectiveTimes&&) noexcept = default;

const fabric::Fabric& CollectiveTimes::fabric_for(GroupShape group, collectives::Op op) {
  const bool consecutive_all_to_all = op == collectives::Op::kAlltoall && group.stride == 1;
  const bool real_cluster = consecutive_all_to_all || group.stride * group.size <= cluster_.server.gpus;
  auto& slot = fabrics_[{real_cluster, group.size}];
  if (!slot) {
    slot = std::make_unique<fabric::Fabric>(real_cluster ? cluster_ : slice_, static_cast<int>(group.size));
  }
  return *slot;
}

SimTime CollectiveTimes::time(collectives::Op op, GroupShape group, Bytes size, int element_bytes) {
  if (free_ || group.size <= 1 || size.count() <= 0) return SimTime();
  const auto key = std::tuple{static_cast<int>(op), group, size.count(), element_bytes};
  if (const auto it = cache_.find(key); it != cache_.end()) return it->second;
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
  const auto result = collectives::predict_collective(fabric_for(group, op), query);
  CTWIN_ASSERT(result.rows.size() == 1, "one size asked, one row returned");
  ++predictions_;
  return cache_[key] = result.rows.front().time;
}

}  // namespace ctwin::replay
