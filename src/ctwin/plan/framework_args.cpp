#include "ctwin/plan/framework_args.hpp"

namespace ctwin::api {
namespace {

std::string megatron_flag(const char* name, std::int64_t value) { return std::string(name) + " " + std::to_string(value); }

std::string bridge_setting(const char* name, std::int64_t value) { return std::string(name) + "=" + std::to_string(value); }

std::string bridge_setting(const char* name, bool value) { return std::string(name) + "=" + (value ? "true" : "false"); }

std::string bridge_setting(const char* name, const char* value) { return std::string(name) + "=" + value; }

std::vector<std::string> megatron_arguments_of(const PlanEntry& e, std::int64_t global_batch) {
  const workload::ParallelConfig& s = e.split;
  std::vector<std::string> out = {megatron_flag("--tensor-model-parallel-size", s.tp),
                                  megatron_flag("--pipeline-model-parallel-size", s.pp)};
  if (s.schedule == workload::PipelineSchedule::kInterleaved) {
    out.push_back(megatron_flag("--num-virtual-stages-per-pipeline-rank", s.vpp));
  }
  if (s.embedding_in_split) {
    out.emplace_back("--account-for-embedding-in-pipeline-split");
    out.emplace_back("--account-for-loss-in-pipeline-split");
  }
  out.push_back(megatron_flag("--context-parallel-size", s.cp));
  if (s.ep > 1) out.push_back(megatron_flag("--expert-model-parallel-size", s.ep));
  if (s.sequence_parallel) out.emplace_back("--sequence-parallel");
  out.push_back(megatron_flag("--micro-batch-size", s.micro_batch));
  out.push_back(megatron_flag("--global-batch-size", global_batch));
  if (s.distributed_optimizer) out.emplace_back("--use-distributed-optimizer");
  if (s.zero >= 2) {
    // Megatron-LM's own DDP has no ZeRO-2/3; its FSDP shards the same state.
    out.emplace_back("--use-megatron-fsdp");
    out.emplace_back(s.zero == 3 ? "--data-parallel-sharding-strategy optim_grads_params"
                                 : "--data-parallel-sharding-strategy optim_grads");
  }
  if (s.recompute == workload::Recompute::kSelective) out.emplace_back("--recompute-granularity selective");
  if (s.recompute == workload::Recompute::kFull) {
    out.emplace_back("--recompute-granularity full");
    out.emplace_back("--recompute-method uniform");
    out.emplace_back("--recompute-num-layers 1");
  }
  return out;
}

std::vector<std::string> bridge_overrides_of(const PlanEntry& e, std::int64_t global_batch) {
  const workload::ParallelConfig& s = e.split;
  const bool interleaved = s.schedule == workload::PipelineSchedule::kInterleaved;
  std::vector<std::string> out = {bridge_setting("model.tensor_model_parallel_size", s.tp),
                                  bridge_setting("model.pipeline_model_parallel_size", s.pp)};
  out.push_back(interleaved ? bridge_setting("model.virtual_pipeline_model_parallel_size", s.vpp)
                            : bridge_setting("model.virtual_pipeline_model_parallel_size", "null"));
  if (s.embedding_in_split) {
    out.push_back(bridge_setting("model.account_for_embedding_in_pipeline_split", true));
    out.push_back(bridge_setting("model.account_for_loss_in_pipeline_split", true));
  }
  out.push_back(bridge_setting("model.context_parallel_size", s.cp));
  out.push_back(bridge_setting("model.expert_model_parallel_size", s.ep));
  out.push_back(bridge_setting("model.sequence_parallel", s.sequence_parallel));
  out.push_back(bridge_setting("train.micro_batch_size", s.micro_batch));
  out.push_back(bridge_setting("train.global_batch_size", global_batch));
  out.push_back(bridge_setting("ddp.use_distributed_optimizer", s.distributed_optimizer));
  out.push_back(bridge_setting("optimizer.use_distributed_optimizer", s.distributed_optimizer));
  if (s.zero >= 2) {
    out.push_back(bridge_setting("ddp.use_megatron_fsdp", true));
    out.push_back(bridge_setting("ddp.data_parallel_sharding_strategy", s.zero == 3 ? "optim_grads_params" : "optim_grads"));
  }
  switch (s.recompute) {
    case workload::Recompute::kNone: out.push_back(bridge_setting("model.recompute_granularity", "null")); break;
    case workload::Recompute::kSelective: out.push_back(bridge_setting("model.recompute_granularity", "selective")); break;
    case workload::Recompute::kFull:
      out.push_back(bridge_setting("model.recompute_granularity", "full"));
      out.push_back(bridge_setting("model.recompute_method", "uniform"));
      out.push_back(bridge_setting("model.recompute_num_layers", std::int64_t{1}));
      break;
  }
  return out;
}

}  // namespace

std::vector<std::string> framework_arguments(const PlanEntry& entry, std::int64_t global_batch,
                                             FrameworkSyntax syntax) {
  return syntax == FrameworkSyntax::kMegatron ? megatron_arguments_of(entry, global_batch) : bridge_overrides_of(entry, global_batch);
}

}  // namespace ctwin::api
