#include "ctwin/workload/parallel_config.hpp"

#include <limits>
#include <optional>
#include <string_view>

#include "ctwin/core/error.hpp"
#include "ctwin/core/limits.hpp"
#include "ctwin/workload/pipeline_layout.hpp"

namespace ctwin::workload {
namespace {

struct FieldName {
  std::string_view field;   // key in the scenario
  std::string_view object;  // "training" or "parallel"
  std::string_view flag;    // the `ctwin model` flag
};

constexpr FieldName kFields[] = {
    {"tp", "parallel", "--tp"},
    {"pp", "parallel", "--pp"},
    {"vpp", "parallel", "--vpp"},
    {"first_stage_layers", "parallel", "--first-stage-layers"},
    {"last_stage_layers", "parallel", "--last-stage-layers"},
    {"account_for_embedding_in_pipeline_split", "parallel", "--account-for-embedding-in-pipeline-split"},
    {"account_for_loss_in_pipeline_split", "parallel", "--account-for-loss-in-pipeline-split"},
    {"pipeline_layout", "parallel", "--pipeline-layout"},
    {"cp", "parallel", "--cp"},
    {"cp_comm", "parallel", "--cp-comm"},
    {"attention", "training", "--attention"},
    {"ep", "parallel", "--ep"},
    {"expert_tp", "parallel", "--expert-tp"},
    {"dp", "parallel", "--dp"},
    {"sequence_parallel", "parallel", "--sp"},
    {"zero", "parallel", "--zero"},
    {"distributed_optimizer", "parallel", "--distributed-optimizer"},
    {"recompute", "parallel", "--recompute"},
    {"schedule", "parallel", "--schedule"},
    {"micro_batch", "training", "--micro-batch"},
    {"global_batch", "training", "--global-batch"},
    {"seq_len", "training", "--seq"},
    {"precision", "training", "--precision"},
    {"grad_reduce_in_fp32", "training", "--grad-reduce-in-fp32"},
    {"gradient_topk", "training", "training.gradient_topk"},
    {"gpus", "", "--gpus"},
};

[[noreturn]] void fail(const ParallelConfig& split, std::string_view field, const std::string& message) {
  for (const auto& name : kFields) {
    if (name.field != field) continue;
    if (split.origin.from_flags) throw InputError(std::string(name.flag), "", message);
    const std::string pointer = name.object.empty() ? "/" + std::string(field)
                                                    : "/" + std::string(name.object) + "/" + std::string(field);
    throw InputError(split.origin.source, pointer, message);
  }
  throw InternalError("parallel_config: no name for field " + std::string(field));
}

std::string str(std::int64_t v) { return std::to_string(v); }

void check_divides(const ParallelConfig& split, std::string_view field, std::int64_t divisor, std::int64_t value,
                   const std::string& what) {
  if (value % divisor != 0) {
    fail(split, field, std::string(field) + " " + str(divisor) + " does not divide " + what + " " + str(value));
  }
}

void validate_tensor(const ModelSpec& model, const ParallelConfig& split) {
  check_divides(split, "tp", split.tp, model.heads, "heads");
  // Megatron shards query groups over TP and never replicates KV heads (num_query_groups % tp).
  if (model.attention != AttentionKind::kMla) check_divides(split, "tp", split.tp, model.kv_heads, "kv_heads");
  if (model.dense_layers() > 0) check_divides(split, "tp", split.tp, model.ffn_hidden, "ffn_hidden");
}

void validate_schedule_batches(const ParallelConfig& split, std::int64_t micro_batches) {
  if (split.schedule == PipelineSchedule::kInterleaved) {
    if (split.pp < 2) fail(split, "schedule", "the interleaved schedule needs pp > 1, got pp " + str(split.pp));
    if (split.vpp < 2) fail(split, "vpp", "the interleaved schedule needs vpp > 1 model chunks per rank");
    if (micro_batches % split.pp != 0) {
      fail(split, "global_batch", str(micro_batches) + " micro-batches per step are not a multiple of pp " +
                                      str(split.pp) + " (Megatron's interleaved schedule requires it)");
    }
  } else if (split.vpp > 1) {
    fail(split, "vpp", "vpp " + str(split.vpp) + " needs the interleaved schedule");
  }
}

void validate_pipeline(const ModelSpec& model, const ParallelConfig& split, std::int64_t micro_batches) {
  if (!split.pipeline_layout.empty()) {
    if (split.first_stage_layers || split.last_stage_layers || split.embedding_in_split || split.loss_in_split) {
      fail(split, "pipeline_layout",
           "cannot be combined with first/last_stage_layers or account_for_embedding/loss_in_pipeline_split");
    }
    const auto stages = static_cast<std::int64_t>(split.pipeline_layout.size());
    if (stages != split.pp * split.vpp) {
      fail(split, "pipeline_layout", "has " + str(stages) + " stages but pp·vpp = " + str(split.pp * split.vpp));
    }
    std::int64_t layers = 0;
    for (std::int64_t n : split.pipeline_layout) layers += n;
    if (layers != model.layers) {
      fail(split, "pipeline_layout", "places " + str(layers) + " layers but " + model.name + " has " + str(model.layers));
    }
    return validate_schedule_batches(split, micro_batches);
  }
  if (split.embedding_in_split || split.loss_in_split) {
    const char* field = split.embedding_in_split ? "account_for_embedding_in_pipeline_split"
                                                 : "account_for_loss_in_pipeline_split";
    if (split.first_stage_layers || split.last_stage_layers) {
      fail(split, field, "cannot be combined with first_stage_layers / last_stage_layers (Megatron-Core refuses it)");
    }
    const std::int64_t slots = model.layers + (split.embedding_in_split ? 1 : 0) + (split.loss_in_split ? 1 : 0);
    if (slots % (split.pp * split.vpp) != 0) {
      fail(split, field, "layers " + str(model.layers) + " plus the embedding/loss slots = " + str(slots) +
                             " are not a multiple of pp·vpp = " + str(split.pp * split.vpp));
    }
    return validate_schedule_batches(split, micro_batches);
  }
  if (split.first_stage_layers || split.last_stage_layers) {
    const char* field = split.first_stage_layers ? "first_stage_layers" : "last_stage_layers";
    if (split.pp < 2) fail(split, field, "uneven stages need pp > 1");
    if (split.vpp > 1) fail(split, field, "uneven stages need vpp 1 (as Megatron-LM's first/last stage layer counts)");
    const std::int64_t first = split.first_stage_layers.value_or(0);
    const std::int64_t last = split.last_stage_layers.value_or(0);
    const std::int64_t middle_stages = split.pp - (split.first_stage_layers ? 1 : 0) - (split.last_stage_layers ? 1 : 0);
    const std::int64_t rest = model.layers - first - last;
    if (rest < 0 || (middle_stages == 0 && rest != 0)) {
      fail(split, field, "first and last stages hold " + str(first + last) + " of " + str(model.layers) + " layers");
    }
    if (middle_stages > 0 && (rest % middle_stages != 0 || rest / middle_stages < 1)) {
      fail(split, field, str(rest) + " layers left for the other " + str(middle_stages) +
                             " stages do not split evenly into at least one each");
    }
    return validate_schedule_batches(split, micro_batches);
  }
  if (model.layers % (split.pp * split.vpp) != 0) {
    fail(split, split.vpp > 1 ? "vpp" : "pp",
         "pp·vpp = " + str(split.pp * split.vpp) + " does not divide layers " + str(model.layers) +
             " (every pipeline stage and model chunk holds the same number of layers)");
  }
  validate_schedule_batches(split, micro_batches);
}

void validate_experts(const ModelSpec& model, const ParallelConfig& split, std::int64_t dp) {
  if (!model.has_moe) {
    if (split.ep > 1) fail(split, "ep", "ep " + str(split.ep) + " needs an MoE model; " + model.name + " is dense");
    if (split.expert_tp > 1) fail(split, "expert_tp", "expert_tp needs an MoE model; " + model.name + " is dense");
    return;
  }
  check_divides(split, "ep", split.ep, model.moe.experts, "experts");
  if (split.tp > 1 && !split.sequence_parallel) {
    fail(split, "sequence_parallel", "an MoE model with tp > 1 needs sequence_parallel (Megatron-LM requires it)");
  }
  check_divides(split, "expert_tp", split.expert_tp, model.moe.expert_ffn_hidden, "expert_ffn_hidden");
  const std::int64_t stage_ranks = split.tp * split.cp * dp;
  if (stage_ranks % (split.ep * split.expert_tp) != 0) {
    fail(split, "ep", "ep·expert_tp " + str(split.ep * split.expert_tp) + " does not divide tp·cp·dp " +
                          str(stage_ranks) + ", the ranks of one pipeline stage (Megatron MoE parallel folding)");
  }
}

void validate_sequence(const ModelSpec& model, const ParallelConfig& split) {
  if (model.sliding_window > 0 && split.cp > 1) {
    fail(split, "cp", "context parallelism with sliding-window attention is not modelled (cp " + str(split.cp) + ")");
  }
  if (model.sliding_window > 0 && !split.flash_attention) {
    fail(split, "attention", "sliding-window attention is modelled as a fused kernel only");
  }
  if (split.cp > 1 && split.seq_len % (2 * split.cp) != 0) {
    fail(split, "seq_len", "seq_len " + str(split.seq_len) + " is not a multiple of 2·cp " + str(2 * split.cp) +
                               " (ring attention balances causal work over 2·cp chunks)");
  }
  if (split.cp > 1 && !split.flash_attention) {
    fail(split, "attention", "context parallelism (cp " + str(split.cp) +
                                 ") needs a fused attention kernel: TransformerEngine's CP runs on it");
  }
  if (split.sequence_parallel && split.tp > 1 && (split.seq_len / split.cp) % split.tp != 0) {
    fail(split, "seq_len", "seq_len / cp " + str(split.seq_len / split.cp) + " is not a multiple of tp " +
                               str(split.tp) + " (sequence parallelism splits it over TP ranks)");
  }
}

void validate_sharding(const ParallelConfig& split) {
  if (split.zero >= 2 && split.pp > 1) {
    fail(split, "zero", "zero " + std::to_string(split.zero) +
                            " with pp > 1: ZeRO-2/3 shard gradients that pipeline micro-batches accumulate "
                            "(DeepSpeed rejects the combination)");
  }
  if (split.distributed_optimizer && split.zero >= 2) {
    fail(split, "distributed_optimizer", "the distributed optimizer is ZeRO-1; it cannot be combined with zero " +
                                             std::to_string(split.zero));
  }
  if (split.gradient_topk && split.zero == 3) {
    fail(split, "gradient_topk", "top-k sparsification sends a step's gradients once, at its end; zero 3 "
                                 "reduce-scatters them every micro-batch (use zero 0 to 2)");
  }
}

}  // namespace

std::int64_t ParallelConfig::data_parallel(std::int64_t gpus) const { return dp ? *dp : gpus / (tp * pp * cp); }

std::int64_t ParallelConfig::micro_batches(std::int64_t gpus) const {
  return global_batch / (micro_batch * data_parallel(gpus));
}

std::int64_t ParallelConfig::expert_data_parallel(std::int64_t gpus) const {
  return tp * cp * data_parallel(gpus) / (ep * expert_tp);
}

std::string recompute_name(Recompute r) {
  return r == Recompute::kNone ? "none" : r == Recompute::kSelective ? "selective" : "full";
}

std::string schedule_name(PipelineSchedule s) {
  return s == PipelineSchedule::kGpipe ? "gpipe" : s == PipelineSchedule::kOneFOneB ? "1f1b" : "interleaved";
}

std::string precision_name(Precision p) { return p == Precision::kBf16 ? "bf16" : p == Precision::kFp16 ? "fp16" : "fp8"; }

std::string cp_comm_name(CpComm c) { return c == CpComm::kP2p ? "p2p" : "all_gather"; }

std::optional<Recompute> recompute_from_name(std::string_view name) {
  for (const Recompute r : {Recompute::kNone, Recompute::kSelective, Recompute::kFull}) {
    if (recompute_name(r) == name) return r;
  }
  return std::nullopt;
}

std::optional<PipelineSchedule> schedule_from_name(std::string_view name) {
  for (const auto s : {PipelineSchedule::kGpipe, PipelineSchedule::kOneFOneB, PipelineSchedule::kInterleaved}) {
    if (schedule_name(s) == name) return s;
  }
  return std::nullopt;
}

std::optional<Precision> precision_from_name(std::string_view name) {
  for (const Precision p : {Precision::kBf16, Precision::kFp16, Precision::kFp8}) {
    if (precision_name(p) == name) return p;
  }
  return std::nullopt;
}

ParallelConfig read_parallel_config(JsonObjectReader training, JsonObjectReader parallel) {
  constexpr std::int64_t kMax = std::int64_t{1} << 30;
  ParallelConfig split;
  split.origin.source = training.source();
  split.seq_len = training.integer("seq_len", 1, limits::kMaxSeqLen);
  split.global_batch = training.integer("global_batch", 1, kMax);
  split.micro_batch = training.integer("micro_batch", 1, kMax);
  split.precision = *precision_from_name(training.choice_or("precision", {"bf16", "fp16", "fp8"}, "bf16"));
  split.flash_attention = training.choice_or("attention", {"flash", "unfused"}, "flash") == "flash";
  split.grad_reduce_in_fp32 = training.boolean_or("grad_reduce_in_fp32", true);
  if (training.has("gradient_topk")) {
    split.gradient_topk = training.number("gradient_topk", 1e-9, 1);
  }
  training.finish();

  split.tp = parallel.integer_or("tp", 1, kMax, 1);
  split.pp = parallel.integer_or("pp", 1, kMax, 1);
  split.vpp = parallel.integer_or("vpp", 1, kMax, 1);
  if (parallel.has("first_stage_layers")) split.first_stage_layers = parallel.integer("first_stage_layers", 0, kMax);
  if (parallel.has("last_stage_layers")) split.last_stage_layers = parallel.integer("last_stage_layers", 0, kMax);
  split.embedding_in_split = parallel.boolean_or("account_for_embedding_in_pipeline_split", false);
  split.loss_in_split = parallel.boolean_or("account_for_loss_in_pipeline_split", false);
  if (const auto* layout = parallel.optional("pipeline_layout")) {
    if (layout->is_string()) {
      const ParsedLayout parsed = parse_pipeline_layout(layout->get<std::string>());
      if (parsed.error) parallel.fail("pipeline_layout", *parsed.error);
      split.pipeline_layout = parsed.layers;
    } else if (layout->is_array()) {
      for (const auto& n : *layout) {
        if (!n.is_number_integer() || n.get<std::int64_t>() < 0) {
          parallel.fail("pipeline_layout", "expected layer counts >= 0 per virtual stage, got " + n.dump());
        }
        split.pipeline_layout.push_back(n.get<std::int64_t>());
      }
    } else {
      parallel.fail("pipeline_layout", "expected Megatron's layout text (\"Et*3|(tt|)*29|L\") or layer counts per virtual stage");
    }
  }
  split.cp = parallel.integer_or("cp", 1, kMax, 1);
  split.cp_comm = parallel.choice_or("cp_comm", {"p2p", "all_gather"}, "p2p") == "p2p" ? CpComm::kP2p : CpComm::kAllGather;
  split.ep = parallel.integer_or("ep", 1, kMax, 1);
  split.expert_tp = parallel.integer_or("expert_tp", 1, kMax, 1);
  if (const auto* dp = parallel.optional("dp"); dp != nullptr && !(dp->is_string() && *dp == "auto")) {
    split.dp = parallel.integer("dp", 1, kMax);
  }
  split.sequence_parallel = parallel.boolean_or("sequence_parallel", false);
  split.distributed_optimizer = parallel.boolean_or("distributed_optimizer", false);
  split.zero = static_cast<int>(parallel.integer_or("zero", 0, 3, 0));
  split.recompute = *recompute_from_name(parallel.choice_or("recompute", {"none", "selective", "full"}, "none"));
  split.schedule = *schedule_from_name(parallel.choice_or("schedule", {"gpipe", "1f1b", "interleaved"}, "1f1b"));
  parallel.finish();
  return split;
}

std::int64_t ParallelConfig::stage_layers(std::int64_t model_layers, std::int64_t stage) const {
  if (!pipeline_layout.empty()) return chunk_layers(model_layers, stage, 0);
  if (!first_stage_layers && !last_stage_layers) return model_layers / (pp * vpp);
  if (stage == 0 && first_stage_layers) return *first_stage_layers;
  if (stage == pp - 1 && last_stage_layers) return *last_stage_layers;
  const std::int64_t middle = pp - (first_stage_layers ? 1 : 0) - (last_stage_layers ? 1 : 0);
  return (model_layers - first_stage_layers.value_or(0) - last_stage_layers.value_or(0)) / middle;
}

std::int64_t ParallelConfig::chunk_layers(std::int64_t model_layers, std::int64_t stage, std::int64_t chunk) const {
  if (!pipeline_layout.empty()) return pipeline_layout[static_cast<std::size_t>(chunk * pp + stage)];
  if (first_stage_layers || last_stage_layers) return stage_layers(model_layers, stage);
  const std::int64_t chunks = pp * vpp;
  const std::int64_t per = (model_layers + (embedding_in_split ? 1 : 0) + (loss_in_split ? 1 : 0)) / chunks;
  const std::int64_t g = chunk * pp + stage;
  return per - (g == 0 && embedding_in_split ? 1 : 0) - (g == chunks - 1 && loss_in_split ? 1 : 0);
}

std::int64_t ParallelConfig::chunk_first_layer(std::int64_t model_layers, std::int64_t stage, std::int64_t chunk) const {
  if (!pipeline_layout.empty()) {
    std::int64_t first = 0;
    for (std::int64_t v = 0; v < chunk * pp + stage; ++v) first += pipeline_layout[static_cast<std::size_t>(v)];
    return first;
  }
  if (first_stage_layers || last_stage_layers) return stage_first_layer(model_layers, stage);
  const std::int64_t per = (model_layers + (embedding_in_split ? 1 : 0) + (loss_in_split ? 1 : 0)) / (pp * vpp);
  const std::int64_t g = chunk * pp + stage;
  return g * per - (g > 0 && embedding_in_split ? 1 : 0);
}

std::int64_t ParallelConfig::stage_first_layer(std::int64_t model_layers, std::int64_t stage) const {
  if (!pipeline_layout.empty()) return chunk_first_layer(model_layers, stage, 0);
  std::int64_t first = 0;
  for (std::int64_t s = 0; s < stage; ++s) first += stage_layers(model_layers, s);
  return first;
}

std::int64_t gpus_of(const ParallelConfig& split) {
  std::optional<std::int64_t> product = split.tp;
  for (const std::int64_t factor : {split.pp, split.cp, split.dp.value_or(1)}) {
    if (product) product = limits::checked_product(*product, factor);
  }
  // Beyond int64 is beyond the bound too; validate_gpus names the bound.
  return product.value_or(std::numeric_limits<std::int64_t>::max());
}

void validate_gpus(const ParallelConfig& split, std::int64_t gpus) {
  if (gpus < 1) fail(split, "gpus", "must be at least 1, got " + str(gpus));
  if (gpus > limits::kMaxGpus) fail(split, "gpus", str(gpus) + " GPUs is above the limit of 16777216 (2^24)");
  std::optional<std::int64_t> model_parallel = limits::checked_product(split.tp, split.pp);
  if (model_parallel) model_parallel = limits::checked_product(*model_parallel, split.cp);
  if (!model_parallel || *model_parallel > limits::kMaxGpus) {
    fail(split, "tp", "tp·pp·cp is above the limit of 16777216 (2^24) GPUs");
  }
  if (split.seq_len < 1 || split.seq_len > limits::kMaxSeqLen) {
    fail(split, "seq_len", str(split.seq_len) + " tokens is outside [1, 16777216 (2^24)]");
  }
  // Tokens in one micro-batch and in one step: bounds that keep every activation size and
  // FLOP count far inside int64 and double (core/limits.hpp).
  const auto micro_tokens = limits::checked_product(split.seq_len, split.micro_batch);
  if (!micro_tokens || *micro_tokens > limits::kMaxTokensPerMicroBatch) {
    fail(split, "micro_batch", "micro_batch·seq_len is above the limit of 2^26 tokens per micro-batch");
  }
  const auto step_tokens = limits::checked_product(split.seq_len, split.global_batch);
  if (!step_tokens || *step_tokens > limits::kMaxTokensPerStep) {
    fail(split, "global_batch", "global_batch·seq_len is above the limit of 2^36 tokens per step");
  }
}

void validate(const ModelSpec& model, const ParallelConfig& split, std::int64_t gpus) {
  validate_gpus(split, gpus);
  const std::int64_t model_parallel = split.tp * split.pp * split.cp;
  if (split.dp) {
    if (model_parallel * *split.dp != gpus) {
      fail(split, "dp", "tp·pp·cp·dp = " + str(model_parallel * *split.dp) + " but there are " + str(gpus) + " GPUs");
    }
  } else if (gpus % model_parallel != 0) {
    fail(split, "gpus", str(gpus) + " GPUs are not a multiple of tp·pp·cp = " + str(model_parallel));
  }
  const std::int64_t dp = split.data_parallel(gpus);
  validate_tensor(model, split);
  validate_experts(model, split, dp);
  validate_sequence(model, split);
  validate_sharding(split);
  if (split.global_batch % (split.micro_batch * dp) != 0) {
    fail(split, "global_batch", "global_batch " + str(split.global_batch) + " is not a multiple of micro_batch·dp = " +
                                    str(split.micro_batch * dp));
  }
  validate_pipeline(model, split, split.micro_batches(gpus));
}

}  // namespace ctwin::workload
