#pragma once
// A planned split as the arguments of the framework that will run it (`ctwin plan --format
// megatron|nemo`): only what the plan decides (the split, the schedule, the batch, the optimizer
// sharding, recompute), never the model, precision or data, which the user's launch script keeps.
//
//   megatron  Megatron-LM's command-line flags (megatron/training/arguments.py): one per line,
//             "--tensor-model-parallel-size 8"; the interleaved schedule as
//             --num-virtual-stages-per-pipeline-rank (valid with the embedding/loss accounting
//             flags, unlike --num-layers-per-virtual-pipeline-stage).
//   nemo      Megatron-Bridge / NeMo 2 recipe overrides ("model.tensor_model_parallel_size=8",
//             "train.micro_batch_size=1", "ddp.use_distributed_optimizer=true"), the names of its
//             ConfigContainer (model provider, training, DDP and optimizer configs).
// ZeRO-2/3 have no Megatron-LM flag: the split's line says so and names Megatron-FSDP's.

#include <string>
#include <vector>

#include "ctwin/plan/plan.hpp"

namespace ctwin::api {

enum class FrameworkSyntax { kMegatron, kNemo };

/// `entry`'s split (a valid plan result) in `syntax`, one argument per string. `global_batch` is
/// the plan's.
[[nodiscard]] std::vector<std::string> framework_arguments(const PlanEntry& entry, std::int64_t global_batch,
                                                           FrameworkSyntax syntax);

}  // namespace ctwin::api
