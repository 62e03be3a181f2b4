#pragma once
// What a checkpoint costs: its size from the model and the split, where it is written and how.
//
// Size (bytes per parameter, the states a restart needs; gradients are not saved):
//   weights 2 B (bf16/fp16) + optimizer 12 B (fp32 master copy 4 B + Adam's two moments 8 B)
//   = 14 B/param (Megatron-LM, DeepSpeed); without an fp32 master copy (OPT-175B kept fp16 weights
//   and fp32 Adam states sharded over hosts) 10 B/param.
// Writers: with ZeRO-1 or more (the distributed optimizer) every data-parallel rank holds a shard
//   of the optimizer, so every node of the job writes; without, only the first replica's nodes
//   (tp·pp·cp GPUs) hold the whole state and write it.
// Time (a storage tier has an aggregate and a per-node bandwidth, for writes and for reads):
//   write = latency + max(size / aggregate, size per writer / per-node)
//   load  = latency + max(size / read aggregate, size per job node / read per-node): every node
//           reads its share once (the broadcast of replicated weights over the fabric is left out)
// Asynchronous tiers (local NVMe, peer memory) block the job only for the snapshot of a node's
// share into host memory (size per writer / snapshot per-node bandwidth); the copy to the tier
// runs in the background and the checkpoint is durable only when it ends (persist time).

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "ctwin/replay/checkpoint_save.hpp"
#include "ctwin/replay/scenario.hpp"

namespace ctwin::analysis {

struct TierBandwidth {
  double aggregate_Bps = 0;  ///< every writer (reader) together
  double per_node_Bps = 0;   ///< one node's path to the tier
};

struct StorageTier {
  std::string name;
  std::string description;
  TierBandwidth write;
  TierBandwidth read;
  double latency_s = 0;              ///< fixed cost of one checkpoint (metadata, barrier, open files)
  double snapshot_per_node_Bps = 0;  ///< > 0: asynchronous, blocking only for the host-memory snapshot
  std::vector<std::string> sources;
  [[nodiscard]] bool asynchronous() const { return snapshot_per_node_Bps > 0; }
};

/// Reads the tiers of a storage file (models/reliability/storage.json); InputError on any problem.
[[nodiscard]] std::vector<StorageTier> load_storage_tiers(const std::filesystem::path& path);
[[nodiscard]] std::vector<StorageTier> parse_storage_tiers(const nlohmann::json& document, const std::string& source);

/// A shared tier of the cluster's storage (fabric/storage_spec.hpp) as a checkpoint tier, named
/// "cluster:NAME": write aggregate = servers × write_per_server, read aggregate = the tier's, both
/// per-node rates = the node's path to the tier (storage network ports or compute NICs), no fixed
/// latency (the topology gives none) and blocking writes. InputError naming `origin` when the
/// cluster has no such shared tier or the tier gives no write_per_server.
[[nodiscard]] StorageTier storage_tier_of_cluster(const fabric::ClusterSpec& cluster, const std::string& name,
                                                  const std::string& origin);

struct CheckpointOptions {
  bool fp32_master = true;  ///< false: 10 B/param (fp16 weights + fp32 moments), as OPT-175B
};

using replay::CheckpointSize;

/// Size and writers for a scenario whose job spans `job_nodes` nodes.
[[nodiscard]] CheckpointSize checkpoint_size(const replay::Scenario& scenario, long long job_nodes,
                                             const CheckpointOptions& options = {});

struct CheckpointCost {
  CheckpointSize size;
  std::string tier;
  bool asynchronous = false;
  double blocking_s = 0;  ///< the job stops for this long per checkpoint
  double persist_s = 0;   ///< after the blocking part, until the checkpoint is durable (0 if blocking)
  double load_s = 0;      ///< reading it back at a restart
};

[[nodiscard]] CheckpointCost checkpoint_cost(const CheckpointSize& size, const StorageTier& tier, long long job_nodes);

}  // namespace ctwin::analysis
