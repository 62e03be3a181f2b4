#pragma once
// How one training step is split over GPUs, with Megatron-LM's names and rules, and the training
// settings that go with it (sequence length, batch, precision). Read from a scenario's
// "training" and "parallel" objects or built by a front end from flags.
//
// Rules checked by validate() (Megatron-LM: megatron/training/arguments.py validate_args and
// megatron/core/parallel_state.py initialize_model_parallel; DeepSpeed for ZeRO-2/3):
//   gpus = tp·pp·cp·dp (dp "auto" is gpus / (tp·pp·cp))
//   heads and kv_heads (query groups) divisible by tp; ffn_hidden and experts' width by tp / expert_tp
//   pipeline_layout: one entry per virtual stage (pp·vpp), summing to the layers, and alone (not
//        with first/last-stage counts or the embedding/loss slots);
//   layers divisible by pp·vpp (every virtual stage holds the same number of layers); with
//        account_for_embedding/loss_in_pipeline_split, layers + 1 per flag divisible by pp·vpp
//        (Megatron-Core transformer_block.py get_num_layers_to_build: the embedding takes a
//        layer's slot in the first model chunk, the loss one in the last)
//   MoE: experts divisible by ep; ep·expert_tp divides tp·cp·dp, the ranks of one pipeline stage
//        (MoE parallel folding: expert dp = tp·cp·dp / (ep·expert_tp)); MoE with tp > 1 needs
//        sequence parallelism; without MoE ep = expert_tp = 1
//   global_batch divisible by micro_batch·dp (micro-batches per step = global / (micro·dp))
//   cp > 1: seq_len divisible by 2·cp (ring attention splits each sequence in 2·cp chunks to
//        balance causal work) and a fused attention kernel (TransformerEngine's CP runs on it);
//        a sliding-window model needs cp 1 and a fused kernel (ctwin models neither otherwise);
//        sequence parallel: seq_len / cp divisible by tp
//   interleaved schedule: pp > 1, vpp > 1, micro-batches per step divisible by pp; vpp > 1 only
//        with the interleaved schedule
//   zero 2 or 3 with pp > 1 is rejected (DeepSpeed: ZeRO-2/3 are incompatible with its pipeline
//        engine); distributed_optimizer is Megatron's ZeRO-1 and excludes zero 2/3

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ctwin/core/json_reader.hpp"
#include "ctwin/workload/model_spec.hpp"

namespace ctwin::workload {

enum class Recompute { kNone, kSelective, kFull };
enum class PipelineSchedule { kGpipe, kOneFOneB, kInterleaved };
enum class Precision { kBf16, kFp16, kFp8 };
/// How context-parallel ranks exchange keys and values (TransformerEngine's cp_comm_type):
/// "p2p" passes KV blocks around a ring, overlapped with attention; "all_gather" gathers all KV
/// before attention and reduce-scatters dKV after its backward, both exposed.
enum class CpComm { kP2p, kAllGather };

/// Where the values came from, so that errors name the scenario field or the flag.
struct ConfigOrigin {
  std::string source = "scenario";  ///< a file path, or "flags" when built from command-line flags
  bool from_flags = false;
};

struct ParallelConfig {
  std::int64_t tp = 1;
  std::int64_t pp = 1;
  std::int64_t vpp = 1;        ///< model chunks per pipeline rank (virtual stages)
  /// Uneven pipelines (Megatron-LM's --decoder-first/last-pipeline-num-layers): layers on the
  /// first and last stage, the rest split evenly over the others; vpp must be 1.
  std::optional<std::int64_t> first_stage_layers;
  std::optional<std::int64_t> last_stage_layers;
  /// Megatron-Core's account_for_embedding_in_pipeline_split / account_for_loss_in_pipeline_split:
  /// the first (last) model chunk of the pipeline holds one transformer layer fewer.
  bool embedding_in_split = false;
  bool loss_in_split = false;
  /// Megatron-Core's --pipeline-model-parallel-layout (pipeline_layout.hpp): transformer layers per
  /// virtual stage, in virtual-stage order (chunk·pp + rank); empty: the even split above.
  std::vector<std::int64_t> pipeline_layout;
  std::int64_t cp = 1;
  CpComm cp_comm = CpComm::kP2p;
  std::int64_t ep = 1;
  std::int64_t expert_tp = 1;  ///< tensor parallelism inside each expert
  std::optional<std::int64_t> dp;  ///< nullopt = "auto"
  bool sequence_parallel = false;
  int zero = 0;                ///< 0..3; FSDP full sharding = 3
  bool distributed_optimizer = false;
  Recompute recompute = Recompute::kNone;
  PipelineSchedule schedule = PipelineSchedule::kOneFOneB;
  std::int64_t micro_batch = 1;
  std::int64_t global_batch = 1;
  std::int64_t seq_len = 2048;
  Precision precision = Precision::kBf16;
  /// A fused attention kernel (FlashAttention, cuDNN) keeps no s×s scores; "unfused" is the
  /// pre-2022 path (score GEMM, fused softmax, dropout, value GEMM), e.g. Megatron-LM in SC'21.
  bool flash_attention = true;
  /// Gradients kept and reduced in fp32 (Megatron-LM's default with bf16/fp8: it sets
  /// accumulate_allreduce_grads_in_fp32), else in bf16, as NeMo's and Megatron-Bridge's
  /// performance scripts configure (grad_reduce_in_fp32 = False).
  bool grad_reduce_in_fp32 = true;
  /// Top-k gradient sparsification: the share of each rank's gradient elements it sends in the DP
  /// reduction (Lin et al., Deep Gradient Compression, ICLR 2018: 0.001 to 0.01), the rest kept
  /// for the next step; none: dense gradients (replay/op_graph.hpp says how it is replayed).
  std::optional<double> gradient_topk;
  ConfigOrigin origin;

  /// Transformer layers on pipeline rank `stage` (per model chunk when vpp > 1; without the
  /// embedding/loss accounting, which makes chunks differ: use chunk_layers).
  [[nodiscard]] std::int64_t stage_layers(std::int64_t model_layers, std::int64_t stage) const;
  /// The first layer index held by pipeline rank `stage` (vpp 1).
  [[nodiscard]] std::int64_t stage_first_layer(std::int64_t model_layers, std::int64_t stage) const;
  /// Transformer layers in model chunk `chunk` of pipeline rank `stage` (Megatron's interleaving:
  /// chunk c of rank r is the (c·pp + r)-th run of layers), and the global index of its first.
  [[nodiscard]] std::int64_t chunk_layers(std::int64_t model_layers, std::int64_t stage, std::int64_t chunk) const;
  [[nodiscard]] std::int64_t chunk_first_layer(std::int64_t model_layers, std::int64_t stage, std::int64_t chunk) const;

  /// dp as given, or gpus / (tp·pp·cp) for "auto" (validate() first).
  [[nodiscard]] std::int64_t data_parallel(std::int64_t gpus) const;
  /// Micro-batches each pipeline runs per step: global / (micro·dp).
  [[nodiscard]] std::int64_t micro_batches(std::int64_t gpus) const;
  /// Optimizer-state sharding in effect: the ZeRO stage, 1 for the distributed optimizer.
  [[nodiscard]] int zero_stage() const { return distributed_optimizer && zero < 1 ? 1 : zero; }
  /// Ranks sharing a copy of the expert weights: tp·cp·dp / (ep·expert_tp).
  [[nodiscard]] std::int64_t expert_data_parallel(std::int64_t gpus) const;
};

[[nodiscard]] std::string recompute_name(Recompute r);
[[nodiscard]] std::string schedule_name(PipelineSchedule s);
[[nodiscard]] std::string precision_name(Precision p);
[[nodiscard]] std::string cp_comm_name(CpComm c);
/// The inverses of the names above; nullopt for any other text.
[[nodiscard]] std::optional<Recompute> recompute_from_name(std::string_view name);
[[nodiscard]] std::optional<PipelineSchedule> schedule_from_name(std::string_view name);
[[nodiscard]] std::optional<Precision> precision_from_name(std::string_view name);

/// Reads a scenario's "training" and "parallel" objects (docs/input-formats.md); both readers must be
/// finished by the caller's reading of the rest of the scenario (this calls their finish()).
[[nodiscard]] ParallelConfig read_parallel_config(JsonObjectReader training, JsonObjectReader parallel);

/// Throws InputError naming the field (scenario pointer such as /parallel/tp, or the flag) and
/// exactly which rule fails.
void validate(const ModelSpec& model, const ParallelConfig& split, std::int64_t gpus);

/// The range policy's part of validate(), checkable before anything multiplies the sizes:
/// 1 <= gpus <= 2^24, tp·pp·cp <= 2^24, micro_batch·seq_len <= 2^26 tokens and
/// global_batch·seq_len <= 2^36 tokens. Throws InputError naming the field (or flag).
void validate_gpus(const ParallelConfig& split, std::int64_t gpus);

/// tp·pp·cp·dp (dp 1 when auto), or int64's maximum when the product overflows.
[[nodiscard]] std::int64_t gpus_of(const ParallelConfig& split);

}  // namespace ctwin::workload
