#pragma once
// The data loader beside the training step (docs/io.md): how long the nodes take to read and
// preprocess one step's samples, and how much of that the step waits for.
//
// Readers: the nodes holding the first pipeline stage (Megatron-LM loads the batch on the first
// stage and broadcasts it over tensor parallelism), ceil(gpus / pp / gpus per node) of them; each
// reads k = global_batch / readers samples per step. A share h (the cache hit rate) comes from a
// node-local cache tier, the rest from a shared tier:
//   remote rate per node  r = min(node path, tier aggregate / readers)
//     node path: the node's storage-network ports, or its compute NICs (attach compute_fabric)
//   read      = max(k (1−h) b / r, k h b / cache read per node)      (both sources at once)
//   metadata  = k (1−h) files per sample / (tier opens per s / readers)
//   preprocess = k · cpu time per sample / workers per node
//   loader    = max(read, metadata, preprocess)                       (stages pipelined)
// b, the bytes a node reads per sample, is the slowest node's: with sample sizes of mean μ and
// standard deviation σ, a node's k samples sum to kμ ± √k σ, and the largest of N such sums is
// about kμ + √k σ √(2 ln N) (the bound on the expected maximum of N normal variables), so
// b = μ + σ √(2 ln N / k).
// Stall: with prefetch ≥ 1 the loader fills the next batch while the step runs, so the step
// waits max(0, loader − step); with prefetch 0 it loads between steps and waits the whole
// loader time. A deeper queue only absorbs bursts, which this steady-state model has none of.

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "ctwin/core/units.hpp"
#include "ctwin/fabric/cluster_spec.hpp"

namespace ctwin::replay {

struct DataPipelineSpec {
  std::string tier;  ///< the shared tier samples are read from (cluster storage)
  double sample_bytes_mean = 0;
  double sample_bytes_stddev = 0;
  double files_per_sample = 0;         ///< opens per sample (0: packed shards whose opens do not count)
  double cpu_s_per_sample = 0;         ///< host preprocessing, one core
  long long workers_per_node = 1;      ///< loader processes, one core each
  long long prefetch = 2;              ///< batches queued ahead (PyTorch's prefetch_factor)
  std::string cache_tier;              ///< node-local tier, empty for none
  double cache_hit_rate = 0;
};

/// Reads a scenario's "data" object. Sample size: "sample_bytes" ("2MiB" or {"mean", "stddev"},
/// stddev optional)
/// or "bytes_per_token" (× seq_len, for token shards). InputError naming `source` and the
/// field on a size of zero, a tier the cluster lacks, a cache that is not node-local, etc.
[[nodiscard]] DataPipelineSpec read_data_pipeline(const nlohmann::json& object, const std::string& source,
                                                  const fabric::ClusterSpec& cluster, std::int64_t seq_len);

struct DataPipelineTiming {
  long long reader_nodes = 0;
  double samples_per_node = 0;
  double bytes_per_node = 0;        ///< the slowest node's, cache hits included
  double node_path_Bps = 0;         ///< one node's path to the shared tier
  double node_remote_Bps = 0;       ///< r: its share of the tier, capped by its path
  double cluster_read_cap_Bps = 0;  ///< min(tier aggregate, readers × node path)
  double cluster_read_Bps = 0;      ///< what the readers draw from the tier while loading
  double read_s = 0, metadata_s = 0, preprocess_s = 0;
  double loader_s = 0;
  double exposed_s = 0;  ///< what the step waits for the loader
  std::string limit;     ///< which term sets loader_s: "storage tier", "node path", "cache", "metadata", "preprocess", "fabric"
  /// `flow` with a tier on the compute fabric: the remote reads' time simulated on the fabric
  /// beside the step (storage_reads.hpp), which replaces the closed form's; "fabric" is the
  /// limit when it sets the loader and exceeds the closed form.
  std::optional<double> fabric_read_s;
};

/// The loader's time against a step of `step_s` seconds (see the file comment); the remote
/// reads take `fabric_read_s` where given (simulated on the fabric) instead of k(1−h)b / r.
[[nodiscard]] DataPipelineTiming time_data_pipeline(const DataPipelineSpec& spec, const fabric::ClusterSpec& cluster,
                                                    std::int64_t gpus, std::int64_t pp, std::int64_t global_batch,
                                                    double step_s, std::optional<double> fabric_read_s = std::nullopt);

}  // namespace ctwin::replay
