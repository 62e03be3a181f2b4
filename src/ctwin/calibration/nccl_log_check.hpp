#pragma once
// Whether an nccl-tests log agrees with itself: nccl-tests prints algbw = size / time and
// busbw = algbw x busbw_factor(op, ranks), each rounded to the digits it shows. A row that
// disagrees by more than that rounding was mistyped, edited, or cut and pasted from two runs,
// and calibration should not fit to it.

#include <string>
#include <vector>

#include "ctwin/calibration/nccl_log.hpp"
#include "ctwin/calibration/nccl_op.hpp"

namespace ctwin::calibration {

struct NcclInconsistency {
  int line = 0;           ///< the row's line in the log
  std::string group;      ///< "out-of-place" or "in-place"
  std::string field;      ///< "algbw" or "busbw"
  double printed = 0;     ///< GB/s as printed
  double expected = 0;    ///< GB/s from size / time (algbw) or printed algbw x factor (busbw)
  double tolerance = 0;   ///< GB/s the printed rounding allows
};

/// Every figure of `log` that disagrees with size / time or with algbw x busbw_factor(op, ranks)
/// by more than the printed digits allow (half a step of each rounded figure involved).
/// Empty when the log is consistent. `ranks` must be >= 1.
[[nodiscard]] std::vector<NcclInconsistency> find_inconsistencies(const NcclLog& log, NcclOp op, int ranks);

/// Throws InputError (file, "line L", what) naming the first inconsistency, if any.
void require_consistent(const NcclLog& log, NcclOp op, int ranks);

/// What calibration requires of a log said to have run `op` on `ranks` ranks: at least one
/// rank, the rank count the log lists (its `#  Rank` lines) if it lists one, and figures
/// consistent with that count (require_consistent; for logs read from text, whose rows know
/// their printed digits). Throws InputError naming the log.
void require_fit_ready(const NcclLog& log, NcclOp op, int ranks);

}  // namespace ctwin::calibration
