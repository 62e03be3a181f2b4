#pragma once
// A GPU model: datasheet figures (peak dense tensor-core rates per dtype, HBM, L2, SMs, clock),
// the kernel launch overhead, default efficiencies for uncalibrated kernels, and optionally a
// calibrated GEMM efficiency table. Loaded from models/gpus/<name>.json.

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ctwin/compute/dtype.hpp"
#include "ctwin/compute/gemm_table.hpp"
#include "ctwin/core/units.hpp"

namespace ctwin::compute {

/// A GEMM output tile computed by one thread block (CTA).
struct TileShape {
  std::int64_t m = 128;
  std::int64_t n = 128;
};

/// Fractions of peak reached by kernels when no calibration says otherwise. These are ctwin's
/// assumptions, not datasheet figures: a profile may override them under "efficiency".
struct KernelEfficiency {
  double gemm = 0.8;           ///< of dense peak, on large GEMMs
  double hbm = 0.8;            ///< of HBM bandwidth, on streaming kernels
  double attention_fwd = 0.6;  ///< of dense peak (FlashAttention-2 paper: 50-73% on A100)
  double attention_bwd = 0.45; ///< of dense peak (FlashAttention-2 paper: 40-63% on A100)
};

/// Non-GEMM kernels priced from kernels measured on the GPU itself (validation/kernels/fit_nongemm.py,
/// docs/compute.md "The non-GEMM kernel model"): each class is its work over an achieved fraction of
/// the datasheet rate, plus a fixed cost for attention. A profile without "non_gemm" prices them with
/// `efficiency` and `launch_overhead` alone, as before. Memory-bound classes keep the profile's
/// launch_overhead as their fixed cost: the fitted per-kernel constant of an isolated timing is mostly
/// the host's launch latency (about 21 us per small kernel in the measuring VMs), hidden in a busy stream.
struct NonGemmCosts {
  double memory_efficiency = 0;  ///< of HBM bandwidth: copies, residual adds, activations, rotary, casts, Adam
  double norm_efficiency = 0;    ///< of HBM bandwidth: LayerNorm and RMSNorm
  double attention_fwd_efficiency = 0;  ///< of the dense peak, FlashAttention-2 FLOPs
  double attention_bwd_efficiency = 0;
  SimTime attention_fwd_fixed;  ///< per kernel: short sequences' partial waves, not a launch
  SimTime attention_bwd_fixed;
};

/// The architecture families a profile may name in "arch", oldest first: what NCCL's tuning
/// (collectives/tuning.hpp) and anything else that differs by silicon generation keys on.
[[nodiscard]] const std::vector<std::string>& gpu_architectures();

struct GpuSpec {
  std::string name;
  /// The silicon's architecture family, one of gpu_architectures() ("hopper"); required, so that
  /// no GPU gets another generation's tuning because its name was not recognised.
  std::string arch;
  std::map<Dtype, FlopRate> peak_dense;  ///< tensor-core rates without sparsity
  Bytes hbm_capacity;
  Bandwidth hbm_bandwidth;
  Bytes l2_size;
  std::int64_t sm_count = 0;  ///< streaming multiprocessors (compute units on AMD)
  double boost_clock_mhz = 0;
  SimTime launch_overhead;
  /// Tiles the roofline may pick from, as a GEMM library's heuristic would; the best one wins.
  std::vector<TileShape> gemm_tiles{{128, 128}, {128, 256}, {256, 128}, {64, 128}, {128, 64}, {64, 64}};
  KernelEfficiency efficiency;
  /// "non_gemm": measured non-GEMM kernel classes; none: `efficiency` prices them (the default).
  std::optional<NonGemmCosts> non_gemm;
  std::optional<GemmEfficiencyTable> gemm_table;
  /// "gemm_table_from": a profile of the same silicon, next to this one's file, whose measured
  /// grids stand in for the dtypes this profile has none for (load_gpu_spec merges them in).
  std::string gemm_table_from;
  /// How many times longer a training step's kernels take than the kernel model says: clocks
  /// under sustained load, launch gaps, kernels the model lacks. Calibrated from measured layer
  /// times (`ctwin calibrate --layers`); 1 = the kernel model as it is. Training replays apply it
  /// to every compute kernel; `ctwin gemm` does not (its tables are themselves cool-GPU timings).
  double training_time_scale = 1.0;
  /// MoE grouped GEMMs (compute/moe_kernels.hpp): r0, the rows per expert at which a grouped kernel
  /// runs at half the speed of one dense GEMM of all its rows. Default: the fit on the project's H200
  /// kernel profile (docs/moe-kernels.md, 304 rows; held-out median error 12.1 %).
  double grouped_gemm_half_speed_rows = 304;
  /// HBM efficiency of unfused (eager) token permutation: index_add's atomics and unfused passes.
  /// Default: the fit on the H200 kernel profile (0.337; held-out median error 9.0 %).
  double permute_hbm_efficiency = 0.337;
  /// Host time to issue one kernel outside a CUDA graph: the framework's dispatch plus the driver's
  /// launch (replay/host_issue.hpp). It is hidden while the GPU has queued work and exposed after a
  /// device-to-host synchronisation. Default 10 us: eager PyTorch ops cost 5-25 us of CPU time each
  /// before their kernel runs (Python, autograd, the ATen dispatcher, cudaLaunchKernel; J. Lin, "From
  /// PyTorch op to kernel launch", gpu_kernel_serving lesson 18), the driver's launch alone a few
  /// microseconds (NVIDIA Technical Blog, "Getting Started with CUDA Graphs", 2019); the H200 VM's
  /// 21 us (validation/kernels, 1,000 small matmuls) is an upper example.
  SimTime host_launch = SimTime::from_seconds(10e-6);
  /// Field name -> where its figure comes from.
  std::map<std::string, std::string> sources;

  /// The dense peak for `dtype`; InputError naming the GPU when it has no such rate.
  [[nodiscard]] FlopRate peak(Dtype dtype) const;
};

/// Parses a GPU profile strictly (units required, unknown keys rejected, every figure must have
/// an entry in "sources"); errors name `source` and the JSON pointer. A "gemm_table_from" is only
/// recorded: resolving it needs the profile's file (load_gpu_spec).
[[nodiscard]] GpuSpec parse_gpu_spec(const nlohmann::json& document, const std::string& source);
/// Only the "arch" of the profile at `path`, checked as parse_gpu_spec checks it: for a fabric's
/// collectives, which need the family and not the GEMM tables.
[[nodiscard]] std::string read_gpu_arch(const std::filesystem::path& path);
/// parse_gpu_spec, then the borrowed grids of "gemm_table_from" merged in. The lender must be a
/// plain measured profile (no borrowing of its own), so a table's origin is always one file away.
[[nodiscard]] GpuSpec load_gpu_spec(const std::filesystem::path& path);

}  // namespace ctwin::compute
