#pragma once
// GEMM sweep CSVs: what validation/collect/gemm_sweep.py writes and `ctwin calibrate --gemm`
// and `ctwin gemm --shapes` read. A header line names the columns, in any order:
//   m,n,k,dtype,time_us     (or tflops instead of time_us; extra columns are ignored)
// Blank lines and lines starting with '#' are skipped. Errors name the file, line and column.

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "ctwin/compute/gemm_shape.hpp"

namespace ctwin::calibration {

struct GemmMeasurement {
  compute::GemmShape shape;
  double time_s = 0;  ///< measured kernel time; 0 when the file has no measurement column
  int line = 0;       ///< 1-based line in the file
};

struct GemmSweep {
  std::string source;  ///< the file, for messages
  std::vector<GemmMeasurement> rows;
};

enum class MeasurementColumn { kRequired, kOptional };

/// Throws InputError (file, "line L, column C (name)", what) on a missing column, a
/// non-positive or malformed size, an unknown dtype or a non-positive time; and when no row.
[[nodiscard]] GemmSweep read_gemm_csv(const std::filesystem::path& path, MeasurementColumn measurement);

}  // namespace ctwin::calibration
