#include "ctwin/replay/layer_ops_cache.hpp"

#include "ctwin/core/error.hpp"

namespace ctwin::replay {

LayerOpsKey LayerOpsKey::of(const workload::ParallelConfig& split, std::int64_t window, bool moe) {
  LayerOpsKey key;
  key.tp = split.tp;
  key.cp = split.cp;
  key.ep = split.ep;
  key.expert_tp = split.expert_tp;
  key.micro_batch = split.micro_batch;
  key.seq_len = split.seq_len;
  key.cp_comm = split.cp_comm;
  key.sequence_parallel = split.sequence_parallel;
  key.flash_attention = split.flash_attention;
  key.recompute = split.recompute;
  key.precision = split.precision;
  key.window = window;
  key.moe = moe;
  return key;
}

std::shared_ptr<const ChunkWork> LayerOpsCache::get(const LayerOpsKey& key, const std::function<ChunkWork()>& build) {
  {
    const std::lock_guard lock(mutex_);
    if (const auto found = layers_.find(key); found != layers_.end()) return found->second;
  }
  // Built outside the lock (another thread may build the same key: the same ops, first one kept).
  auto built = std::make_shared<const ChunkWork>(build());
  const std::lock_guard lock(mutex_);
  return layers_.try_emplace(key, std::move(built)).first->second;
}

std::size_t LayerOpsCache::size() const {
  const std::lock_guard lock(mutex_);
  return layers_.size();
}

void append_layer_ops(std::vector<OpNode>& ops, const std::vector<OpNode>& layer, int wait_for) {
  const int base = static_cast<int>(ops.size());
  ops.insert(ops.end(), layer.begin(), layer.end());
  for (auto op = ops.begin() + base; op != ops.end(); ++op) {
    if (op->wait_for >= 0) op->wait_for += base;
  }
  if (layer.empty()) return;
  CTWIN_ASSERT(layer.front().wait_for < 0, "a layer's first op waits only for what its caller names");
  ops[static_cast<std::size_t>(base)].wait_for = wait_for;
}

}  // namespace ctwin::replay
