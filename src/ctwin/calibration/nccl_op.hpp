#pragma once
// nccl-tests names its binaries after the collective they time (all_reduce_perf,
// alltoall_perf_mpi); the collective itself is ctwin's collectives::Op.

#include <optional>
#include <string_view>

#include "ctwin/collectives/collective.hpp"

namespace ctwin::calibration {

using NcclOp = collectives::Op;

/// The op named `name` ("all_reduce"; "all_reduce_perf" and "all_reduce_perf_mpi" too);
/// nullopt when nccl-tests has no such collective.
[[nodiscard]] std::optional<NcclOp> parse_nccl_op(std::string_view name);

/// "all_reduce, all_gather, ..." for error messages.
[[nodiscard]] std::string_view nccl_op_choices();

}  // namespace ctwin::calibration
