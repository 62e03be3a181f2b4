#include "ctwin/workload/memory_model.hpp"

#include <algorithm>
#include <cmath>

#include "ctwin/core/error.hpp"
#include "ctwin/workload/activation_memory.hpp"
#include "ctwin/workload/parameter_count.hpp"

namespace ctwin::workload {
namespace {

constexpr double kWeightBytes = 2;
constexpr double kOptimizerBytes = 12;

Bytes bytes(double value) { return Bytes(static_cast<std::int64_t>(std::llround(value))); }

struct StageParameters {
  double non_expert = 0;  // per GPU, after TP
  double expert = 0;      // per GPU, after EP and expert TP
  double largest_layer = 0;  // one layer's parameters per GPU (the ZeRO-3 gather unit)
};

struct StageLayers {
  std::int64_t total = 0;
  std::int64_t dense = 0;  // of them without routed experts (the model's first dense layers)
};

StageLayers stage_layers(const ModelSpec& model, const ParallelConfig& split, std::int64_t stage) {
  StageLayers out;
  for (std::int64_t c = 0; c < split.vpp; ++c) {
    const std::int64_t n = split.chunk_layers(model.layers, stage, c);
    out.total += n;
    out.dense += std::clamp<std::int64_t>(model.dense_layers() - split.chunk_first_layer(model.layers, stage, c), 0, n);
  }
  return out;
}

StageParameters stage_parameters(const ModelSpec& model, const ParallelConfig& split, std::int64_t stage) {
  const ParameterCount count = count_parameters(model);
  const LayerParameters& layer = count.layer;
  const StageLayers layers = stage_layers(model, split, stage);
  const std::int64_t per_stage = layers.total;
  const std::int64_t dense_here = layers.dense;
  const std::int64_t moe_here = per_stage - dense_here;
  const auto t = static_cast<double>(split.tp);
  StageParameters p;
  // Shared experts are a dense TP MLP replicated over EP (Megatron's SharedExpertMLP), so they
  // count with the non-expert parameters; only the routed experts are split by EP.
  const std::int64_t shared = model.moe.shared_experts * layer.expert;
  double non_expert = static_cast<double>(per_stage * (layer.attention + layer.norms) + dense_here * layer.dense_mlp +
                                          moe_here * (layer.router + shared));
  if (stage == 0) non_expert += static_cast<double>(count.embedding);
  if (stage == split.pp - 1) {
    const bool copy_of_tied = model.tied_embeddings && split.pp > 1;
    non_expert += static_cast<double>(count.final_norm) +
                  static_cast<double>(copy_of_tied ? model.vocab * model.hidden : count.output);
  }
  p.non_expert = non_expert / t;
  const double experts_per_layer = static_cast<double>(model.moe.experts * layer.expert);
  p.expert = static_cast<double>(moe_here) * experts_per_layer / static_cast<double>(split.ep * split.expert_tp);
  const double dense_layer = static_cast<double>(layer.attention + layer.norms + layer.dense_mlp) / t;
  const double moe_layer = static_cast<double>(layer.attention + layer.norms + layer.router + shared) / t +
                           experts_per_layer / static_cast<double>(split.ep * split.expert_tp);
  p.largest_layer = std::max(dense_here > 0 ? dense_layer : 0.0, moe_here > 0 ? moe_layer : 0.0);
  return p;
}

// Micro-batches of activations rank `stage` holds at its peak, in units of its whole stage.
double in_flight(const ParallelConfig& split, std::int64_t stage, std::int64_t micro_batches) {
  const auto m = static_cast<double>(micro_batches);
  switch (split.schedule) {
    case PipelineSchedule::kGpipe: return m;
    case PipelineSchedule::kOneFOneB: return std::min(m, static_cast<double>(split.pp - stage));
    case PipelineSchedule::kInterleaved: {
      const auto v = static_cast<double>(split.vpp);
      const auto p = static_cast<double>(split.pp);
      const double chunks = std::min(m * v, 2 * (p - static_cast<double>(stage) - 1) + (v - 1) * p + 1);
      return chunks / v;
    }
  }
  return m;
}

double average_layer_activation(const ModelSpec& model, const ParallelConfig& split, const MemoryOptions& options) {
  const double dense = layer_activation_bytes(model, split, LayerKind::kDense, options.flash_attention);
  if (!model.has_moe) return dense;
  const double moe = layer_activation_bytes(model, split, LayerKind::kMoe, options.flash_attention);
  return (dense * static_cast<double>(model.dense_layers()) + moe * static_cast<double>(model.moe_layers())) /
         static_cast<double>(model.layers);
}

// The layer being recomputed under full recompute holds everything a layer without recompute would.
double recompute_working_set(const ModelSpec& model, const ParallelConfig& split, const MemoryOptions& options) {
  if (split.recompute != Recompute::kFull) return 0;
  ParallelConfig stored = split;
  stored.recompute = Recompute::kNone;
  const double dense = layer_activation_bytes(model, stored, LayerKind::kDense, options.flash_attention);
  if (!model.has_moe) return dense;
  return std::max(dense, layer_activation_bytes(model, stored, LayerKind::kMoe, options.flash_attention));
}

MemoryBreakdown stage_memory(const ModelSpec& model, const ParallelConfig& split, std::int64_t gpus,
                             std::int64_t stage, const MemoryOptions& options) {
  MemoryBreakdown out;
  out.stage = stage;
  const StageParameters params = stage_parameters(model, split, stage);
  out.parameters = params.non_expert + params.expert;
  const int zero = split.zero_stage();
  const ModelStateBytes dense_states =
      model_state_bytes(params.non_expert, split.data_parallel(gpus) * split.cp, zero, options.fp32_gradients);
  const ModelStateBytes expert_states =
      model_state_bytes(params.expert, model.has_moe ? split.expert_data_parallel(gpus) : 1, zero, options.fp32_gradients);
  double weights = dense_states.weights + expert_states.weights;
  if (zero == 3) weights += 2 * kWeightBytes * params.largest_layer;
  out.weights = bytes(weights);
  out.gradients = bytes(dense_states.gradients + expert_states.gradients);
  out.optimizer = bytes(dense_states.optimizer + expert_states.optimizer);
  if (split.precision == Precision::kFp8) out.fp8_buffers = bytes(out.parameters);

  out.in_flight = in_flight(split, stage, split.micro_batches(gpus));
  const double layers_per_stage = static_cast<double>(stage_layers(model, split, stage).total);
  double activations = out.in_flight * layers_per_stage * average_layer_activation(model, split, options) +
                       recompute_working_set(model, split, options);
  const bool sp = split.sequence_parallel && split.tp > 1;
  const auto t = static_cast<double>(split.tp);
  const double sb = static_cast<double>(split.seq_len / split.cp * split.micro_batch);
  const auto h = static_cast<double>(model.hidden);
  if (stage == 0) {
    const double embedding_per_micro_batch = 8 * sb + (model.dropout ? sb * h / (sp ? t : 1) : 0);
    activations += std::ceil(out.in_flight) * embedding_per_micro_batch;
  }
  if (stage == split.pp - 1) activations += 4 * sb * h / t * (1 + static_cast<double>(model.vocab) / h);
  out.activations = bytes(activations);
  out.overhead = options.overhead;
  return out;
}

}  // namespace

ModelStateBytes model_state_bytes(double parameters, std::int64_t shards, int zero_stage, bool fp32_gradients) {
  const auto n = static_cast<double>(shards);
  ModelStateBytes out;
  out.weights = kWeightBytes * parameters / (zero_stage >= 3 ? n : 1);
  out.gradients = (fp32_gradients ? 4.0 : 2.0) * parameters / (zero_stage >= 2 ? n : 1);
  out.optimizer = kOptimizerBytes * parameters / (zero_stage >= 1 ? n : 1);
  return out;
}

std::vector<MemoryBreakdown> memory_per_stage(const ModelSpec& model, const ParallelConfig& split, std::int64_t gpus,
                                              const MemoryOptions& options) {
  std::vector<MemoryBreakdown> stages;
  for (std::int64_t stage = 0; stage < split.pp; ++stage) stages.push_back(stage_memory(model, split, gpus, stage, options));
  return stages;
}

MemoryBreakdown memory_per_gpu(const ModelSpec& model, const ParallelConfig& split, std::int64_t gpus,
                               const MemoryOptions& options) {
  // Every stage, not just the ends: with uneven splits (embedding and loss slots, first/last-stage
  // counts, layouts) a stage next to the first holds more layers and nearly as many micro-batches.
  return worst_stage(memory_per_stage(model, split, gpus, options));
}

const MemoryBreakdown& worst_stage(const std::vector<MemoryBreakdown>& stages) {
  CTWIN_ASSERT(!stages.empty(), "a split has at least one pipeline stage");
  return *std::max_element(stages.begin(), stages.end(), [](const MemoryBreakdown& a, const MemoryBreakdown& b) {
    return a.total() < b.total();
  });
}

bool fits_memory(const MemoryBreakdown& memory, const compute::GpuSpec& gpu) {
  return memory.total() <= gpu.hbm_capacity;
}

}  // namespace ctwin::workload
