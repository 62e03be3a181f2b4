#pragma once
// A profiler trace summed by kernel class and phase (issue 41 item 3): what a measured step spent
// on GEMMs, attention, elementwise work, casts, permutation, the optimizer and each collective,
// per layer forward, per layer backward and outside the layers.
//
// Formats read:
// - PyTorch profiler (Kineto) Chrome trace: GPU kernels are the "X" events of category "kernel".
//   A kernel's phase comes from the record_function range it was launched in
//   (validation/collect/profiler_trace.py names them "layer<i>/forward", "layer<i>/backward",
//   "optimizer"): the GPU-side range ("gpu_user_annotation") holding the kernel, else the CPU-side
//   range ("user_annotation") holding the launch with the kernel's correlation id, the innermost
//   that names a phase. DeepSeek's DualPipe profiles name a layer's pieces "attn(F)", "mlp(B)",
//   "mlp(W)": F forward, B and W backward, layers counted by the most repeated "(F)" range. Steps
//   are the "ProfilerStep#N" ranges (1 when there are none).
// - ctwin's own trace (ctwin run --trace): "X" events without a category, one process per
//   simulated rank; args.pass gives the phase, and the ops outside the transformer layers
//   (embedding, final norm, logits, loss, pipeline sends, data-parallel traffic, optimizer) are
//   outside the layers.
// - Nsight Systems `nsys stats --report cuda_gpu_kern_sum --format csv`: per-kernel totals, no
//   phases (everything is outside the layers' split), one device and one step unless told.

#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "ctwin/calibration/kernel_class.hpp"

namespace ctwin::calibration {

enum class TracePhase { kForward, kBackward, kOutsideLayers };
inline constexpr int kTracePhases = 3;
[[nodiscard]] const char* trace_phase_name(TracePhase p);

enum class TraceFormat { kCtwin, kKineto, kNsysCsv };
[[nodiscard]] const char* trace_format_name(TraceFormat f);

struct ClassPhaseTime {
  double us = 0;  ///< summed kernel time, every device and step together
  std::int64_t kernels = 0;
};

struct KernelTotal {
  std::string name;
  double us = 0;
};

struct TraceSummary {
  std::string source;
  TraceFormat format = TraceFormat::kCtwin;
  std::int64_t devices = 1;  ///< processes (ranks) with kernels
  std::int64_t steps = 1;
  std::int64_t layers = 0;   ///< distinct layer ranges (Kineto); 0 when the trace does not say
  std::string model;         ///< from FILE.meta.json's "model" when it exists beside a Kineto trace
  std::array<std::array<ClassPhaseTime, kTracePhases>, kKernelClasses.size()> time{};
  std::vector<KernelTotal> unclassified;  ///< the "other" kernels, longest first (at most 10)

  [[nodiscard]] const ClassPhaseTime& at(KernelClass c, TracePhase p) const {
    return time[static_cast<std::size_t>(c)][static_cast<std::size_t>(p)];
  }
  [[nodiscard]] double total_us() const;
};

/// Reads a trace file in any of the formats above, by its content. InputError naming the file
/// (and the event) for anything that is not one: not JSON or CSV, truncated, an event without a
/// duration or with a negative one, no GPU kernel at all.
[[nodiscard]] TraceSummary read_profiler_trace(const std::filesystem::path& path);

/// The same for a Chrome trace already in memory (ctwin's own, or a Kineto one); `source` names it.
[[nodiscard]] TraceSummary summarize_chrome_trace(const nlohmann::json& trace, const std::string& source);

}  // namespace ctwin::calibration
