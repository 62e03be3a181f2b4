#pragma once
// A measured nccl-tests log against the twin's prediction of the same run, row by row. The
// error is the busbw error: predicted / measured − 1. It is computed from the times (busbw is
// size / time × a factor both sides share), because small sizes print busbw as 0.00.

#include <string>
#include <vector>

#include "ctwin/calibration/nccl_log.hpp"
#include "ctwin/core/error_stats.hpp"
#include "ctwin/collectives/predict.hpp"

namespace ctwin::calibration {

struct BusbwComparison {
  Bytes size;
  SimTime measured_time;
  SimTime predicted_time;
  double measured_busbw_GBps = 0;
  double predicted_busbw_GBps = 0;
  double error = 0;  ///< predicted busbw / measured busbw − 1
  collectives::Algorithm algorithm = collectives::Algorithm::kRing;
  collectives::Protocol protocol = collectives::Protocol::kSimple;
};

struct LogComparison {
  collectives::Op op = collectives::Op::kAllReduce;
  int ranks = 0;
  std::vector<BusbwComparison> rows;
};

/// nccl-tests' element size for its -d type names (float 4, half 2, int8 1, ...); throws
/// InputError naming `source` for an unknown type.
[[nodiscard]] int nccl_type_bytes(const std::string& type, const std::string& source);

/// Predicts every row of `log` (its sizes, its type) on `fabric` with `query`'s algorithm,
/// protocol, network and tuning, and pairs each with the out-of-place measurement.
[[nodiscard]] LogComparison compare_with_log(const NcclLog& log, collectives::Op op, const fabric::Fabric& fabric,
                                             collectives::CollectiveQuery query);

/// The acceptance split of sizes: nccl-tests rows at or above 1 MiB, and below.
[[nodiscard]] bool is_large(Bytes size);

}  // namespace ctwin::calibration
