#pragma once
// A scenario's "checkpoint": how often the job saves its state, to which shared tier of the
// cluster's storage, and whether the save blocks the step (docs/io.md#checkpoints-in-the-step).
//
// Bytes per parameter default to the states a restart needs, the count goodput has always used
// (analysis/checkpoint_model.hpp): weights 2 B + Adam's two fp32 moments 8 B + the fp32 master
// copy 4 B = 14 B (Megatron-LM, DeepSpeed).

#include <optional>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "ctwin/fabric/cluster_spec.hpp"

namespace ctwin::replay {

enum class CheckpointMode {
  kBlocking,  ///< the saving step stops until the last byte is on the tier
  kAsync,     ///< the step stops for the device→host copy; the write overlaps the next steps
};

struct CheckpointSpec {
  long long every_steps = 0;  ///< a save every this many steps
  CheckpointMode mode = CheckpointMode::kBlocking;
  std::string tier;                          ///< a shared tier of the cluster's storage that takes writes
  std::optional<double> bytes_per_parameter;  ///< none: checkpoint_bytes_per_parameter(true)
  double host_copy_per_gpu_Bps = 0;          ///< one GPU's device→host copy rate (async)
};

/// The bytes a restart needs per parameter: bf16 weights, Adam's two moments and, with
/// `fp32_master`, the fp32 master weights (14 B; 10 B without, as OPT-175B's fp16 weights).
[[nodiscard]] double checkpoint_bytes_per_parameter(bool fp32_master);

/// Reads a scenario's "checkpoint" object. InputError naming `source` and the field on an
/// unknown tier, a node-local tier, a tier without write_per_server, every_steps below 1, a mode
/// other than blocking|async, a rate without its unit, or a build without a PCIe rate when no
/// host_copy_per_gpu is given.
[[nodiscard]] CheckpointSpec read_checkpoint(const nlohmann::json& object, const std::string& source,
                                             const fabric::ClusterSpec& cluster);

[[nodiscard]] const char* to_string(CheckpointMode mode);

}  // namespace ctwin::replay
