#pragma once
// One transformer layer's forward and backward op lists, kept for the candidates of one plan
// that share them. A planner's candidates differ only in their split, and most of a split (pp,
// vpp, dp, schedule, ZeRO) decides how many layers a chunk holds and what surrounds them, not
// the layer's own kernels and collectives: those follow from the fields in LayerOpsKey. Building
// them (the compute twin's GEMM and attention estimates, the collective cache's look-ups) was most
// of a candidate's bound (docs/plan.md "Speed"); with the cache a chunk copies them.
//
// A key holds the split's fields the layer's ops read (op_graph.cpp's layer_forward and
// layer_backward, context_parallel, moe_layer) and what the layer index decides (its attention
// window, whether it has routed experts). Everything else those functions read (model, GPU
// profile, cluster, overlap, host and MoE runtime settings, GPU count) belongs to the scenario
// the candidates share: one cache serves one such scenario (api::bound_candidate's callers make
// one per plan). Thread-safe; a value is a pure function of its key, so whichever thread builds
// it first, every reader gets the same ops.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>

#include "ctwin/replay/op_graph.hpp"
#include "ctwin/workload/parallel_config.hpp"

namespace ctwin::replay {

struct LayerOpsKey {
  std::int64_t tp = 1, cp = 1, ep = 1, expert_tp = 1, micro_batch = 1, seq_len = 0;
  workload::CpComm cp_comm = workload::CpComm::kP2p;
  bool sequence_parallel = false, flash_attention = true;
  workload::Recompute recompute = workload::Recompute::kNone;
  workload::Precision precision = workload::Precision::kBf16;
  std::int64_t window = 0;  ///< the layer's attention window (ModelSpec::attention_window)
  bool moe = false;         ///< the layer has routed experts

  [[nodiscard]] static LayerOpsKey of(const workload::ParallelConfig& split, std::int64_t window, bool moe);
  friend auto operator<=>(const LayerOpsKey&, const LayerOpsKey&) = default;
};

class LayerOpsCache {
 public:
  /// The layer's ops as layer_forward/layer_backward append them to an empty list with no op to
  /// wait for (indices from 0), built by `build` the first time `key` is asked for.
  [[nodiscard]] std::shared_ptr<const ChunkWork> get(const LayerOpsKey& key, const std::function<ChunkWork()>& build);
  [[nodiscard]] std::size_t size() const;

 private:
  mutable std::mutex mutex_;
  std::map<LayerOpsKey, std::shared_ptr<const ChunkWork>> layers_;
};

/// Appends `layer` (one of LayerOpsCache's lists) to `ops`: its indices shifted to where it
/// lands, its first op waiting for `wait_for` (as layer_forward/layer_backward's argument).
void append_layer_ops(std::vector<OpNode>& ops, const std::vector<OpNode>& layer, int wait_for);

}  // namespace ctwin::replay
