#pragma once
// One transformer layer on one GPU, as the compute twin times it kernel by kernel, beside what
// validation/collect/layer_bench.py measured for the same layer. A training step is mostly these
// layers, so the two apart say how far the kernel sum is from a real layer (launch gaps, clocks
// under load, kernels the twin does not have) before any communication or pipelining enters.
//
// Measurement files are JSON, read strictly (errors name the file and JSON pointer):
//   {"gpu": "NVIDIA H200", "torch": "2.11.0", "command": "...", "notes": "...",
//    "rows": [{"model": "llama3-8b", "seq_len": 8192, "micro_batch": 1, "precision": "bf16",
//              "phase": "cool" | "hot", "forward_ms": 1.9, "backward_ms": 4.1,
//              "sm_clock_mhz": 1980, "power_w": 610, "iterations": 10}]}
// "cool": the median of a few timings after warm-up, as GEMM sweeps are taken; "hot": the median
// of the last fifth of a sustained run (clocks and power as training meets them).

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace ctwin::replay {

struct LayerQuery {
  std::string model;  ///< a model file or a name under models/llm
  std::string gpu = "h100-sxm";  ///< a GPU profile file or a name under models/gpus
  std::int64_t seq_len = 4096;
  std::int64_t micro_batch = 1;
  std::string precision = "bf16";
  std::string recompute = "none";
  std::string attention = "flash";
  std::int64_t tp = 1;     ///< the layer's share on one rank of a TP group (its collectives left out)
  std::int64_t layer = 0;  ///< which layer (sliding windows and MoE layers differ)
  /// A software stack (replay/stack_profile.hpp: a name under models/stacks or a file); empty: none,
  /// the fused kernels. "pytorch-eager" is the collector's own (layer_bench.py runs eager PyTorch).
  std::string stack;
};

struct KernelTime {
  std::string name;
  double forward_us = 0;
  double backward_us = 0;  ///< recompute included when the query asks for it
};

struct LayerPrediction {
  std::string model_name;
  std::string gpu_name;
  std::vector<KernelTime> kernels;  ///< in the order the forward, then the backward, first runs them
  double forward_ms = 0;
  double backward_ms = 0;
  double training_time_scale = 1;  ///< the profile's, already in the times above
};

/// The compute twin's kernels of one layer. `repo_root` is where bundled names resolve.
/// InputError naming the option for a bad model, GPU, split or layer.
[[nodiscard]] LayerPrediction predict_layer(const LayerQuery& query, const std::filesystem::path& repo_root);

struct LayerMeasurement {
  std::string model;
  std::int64_t seq_len = 0;
  std::int64_t micro_batch = 0;
  std::string precision;
  std::string phase;  ///< "cool" or "hot"
  double forward_ms = 0;
  double backward_ms = 0;
  std::optional<double> sm_clock_mhz;
  std::optional<double> power_w;
  std::int64_t iterations = 0;
  std::int64_t tp = 1;  ///< the rank's share of a tensor-parallel layer, as `ctwin layer --tp` predicts it
};

struct LayerMeasurements {
  std::string source;  ///< the file, for messages
  std::string gpu;     ///< as the collector's machine named it
  std::vector<LayerMeasurement> rows;
};

[[nodiscard]] LayerMeasurements read_layer_measurements(const std::filesystem::path& path);

}  // namespace ctwin::replay
