#pragma once
// nccl-tests output, read exactly as the *_perf binaries print it, e.g. `all_reduce_perf -b 8
// -e 8G -f 2 -g 8`:
//
//   # nThread 1 nGpus 8 minBytes 8 maxBytes 8589934592 step: 2(factor) warmup iters: 5 ...
//   #  Rank  0 Group  0 Pid  4242 on   node01 device  0 [0x18] NVIDIA H100 80GB HBM3
//   #       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
//   #        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)
//              8             2     float     sum      -1    36.47    0.00    0.00      0    34.74    0.00    0.00      0
//   # Avg bus bandwidth    : 66.4834
//
// The column header decides how a row is read, so versions without redop/root, with an
// `error` instead of a `#wrong` column, or with out-of-place columns only are all read alike.
// Lines that are neither `#` lines nor data rows (NCCL INFO, MPI warnings, shell prompts) are
// skipped and counted. Library code: nothing is printed, errors are thrown.

#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "ctwin/calibration/nccl_op.hpp"
#include "ctwin/core/units.hpp"

namespace ctwin::calibration {

/// One unit of the last digit each figure was printed with (0.01 for "36.47"): the rounding a
/// consistency check must allow.
struct NcclPrintedStep {
  double time_us = 0;
  double algbw_GBps = 0;
  double busbw_GBps = 0;
};

/// One out-of-place or in-place measurement. The figures are kept as printed (decimal text,
/// GB = 1e9 B as nccl-tests prints them) because the check against size/time must know their
/// rounding; the accessors give them in ctwin's units.
struct NcclTiming {
  double time_us = 0;
  double algbw_GBps = 0;
  double busbw_GBps = 0;
  std::string wrong;  ///< the #wrong (or old `error`) column as printed: "0", "N/A"; empty if absent
  NcclPrintedStep step;

  [[nodiscard]] SimTime time() const { return SimTime::from_seconds(time_us * 1e-6); }
  [[nodiscard]] Bandwidth algbw() const { return Bandwidth::bytes_per_second(algbw_GBps * 1e9); }
  [[nodiscard]] Bandwidth busbw() const { return Bandwidth::bytes_per_second(busbw_GBps * 1e9); }
};

struct NcclRow {
  Bytes size;                          ///< the size column (nccl-tests' total buffer size)
  std::optional<std::int64_t> count;   ///< elements; absent when the log has no count column
  std::string type;                    ///< "float", "half", ...; empty when absent
  std::string redop;                   ///< "sum", "none", ...; empty when absent (old versions)
  std::optional<int> root;             ///< -1 for rootless ops; absent in old versions
  NcclTiming out_of_place;
  std::optional<NcclTiming> in_place;  ///< absent when the log prints one group of columns
  int line = 0;                        ///< 1-based line in the log
};

struct NcclLog {
  std::string source;                  ///< the file, for messages
  std::optional<NcclOp> op;            ///< from a `<op>_perf` name in a `#` line, else the caller's
  std::optional<int> threads;          ///< `nThread` of the header line
  std::optional<int> gpus_per_thread;  ///< `nGpus` of the header line (per process under MPI)
  std::optional<int> ranks;            ///< distinct `#  Rank N ...` device lines, when listed
  std::vector<NcclRow> rows;           ///< in file order; sizes need not increase
  std::optional<double> avg_busbw_GBps;
  int skipped_lines = 0;               ///< lines that were neither `#` lines nor data rows
};

/// Reads the log at `path`. `op` names the collective when the log does not; a log that names
/// another one is an error. Throws InputError (file, "line L[, column C (name)]", what) on an
/// empty file, a file with no column header or no data rows (a foreign file), a row with fewer
/// or more fields than the column header, a non-numeric number, or an unknown `<op>_perf`.
[[nodiscard]] NcclLog read_nccl_log(const std::filesystem::path& path, std::optional<NcclOp> op = std::nullopt);

/// The same from a stream; `source` names it in errors.
[[nodiscard]] NcclLog parse_nccl_log(std::istream& in, const std::string& source,
                                     std::optional<NcclOp> op = std::nullopt);

}  // namespace ctwin::calibration
