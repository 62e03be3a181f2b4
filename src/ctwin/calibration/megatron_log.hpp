#pragma once
// A Megatron-LM training log, read for its step times: the line training.py's training_log
// prints every --log-interval iterations, e.g.
//
//   [2025-01-07 10:00:00] iteration       20/     100 | consumed samples:         2560 |
//   elapsed time per iteration (ms): 6123.4 | throughput per GPU (TFLOP/s/GPU): 402.1 |
//   learning rate: 1.500000E-04 | global batch size:   128 | lm loss: 8.1E+00 | ...
//
// (one line in the log). `elapsed time per iteration` is the mean over the interval ending at
// that iteration; `throughput per GPU` is Megatron's own FLOP count (with recompute), so it is
// kept for the reader but the step time is the measurement. Every other line (arguments, NCCL
// INFO, warnings) is skipped. Library code: errors are thrown, nothing is printed.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ctwin::calibration {

struct MegatronIteration {
  std::int64_t iteration = 0;  ///< the interval's last iteration
  double elapsed_ms = 0;       ///< mean time per iteration over the interval
  std::optional<double> tflops_per_gpu;
  std::optional<std::int64_t> global_batch;
};

struct MegatronLog {
  std::vector<MegatronIteration> iterations;  ///< in log order
  std::int64_t skipped_lines = 0;             ///< lines that are not iteration lines
};

/// Parses `text`; InputError naming `source` and the line for an iteration line whose figures
/// do not read as positive numbers, or when the log has no iteration line at all.
[[nodiscard]] MegatronLog parse_megatron_log(const std::string& text, const std::string& source);

/// What a run's measurement is: the median of the intervals that end after `warmup` iterations
/// (the first iterations carry start-up, compilation and allocator growth).
struct MegatronMeasurement {
  double step_time_s = 0;
  std::optional<double> tflops_per_gpu;       ///< median, when the log prints it
  std::optional<std::int64_t> global_batch;   ///< when the log prints it (the last one)
  std::int64_t intervals = 0;                 ///< intervals the medians are over
};

/// InputError naming `source` when no interval ends after `warmup` iterations, or when the
/// global batch changes between them (a ramp-up: not one step to compare with).
[[nodiscard]] MegatronMeasurement measure_megatron_log(const MegatronLog& log, std::int64_t warmup,
                                                       const std::string& source);

}  // namespace ctwin::calibration
