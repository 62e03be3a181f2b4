#pragma once
// The collectives nccl-tests measures, and the bus-bandwidth factor each one's busbw column
// applies (nccl-tests doc/PERFORMANCE.md: busbw = algbw x factor, so that every op's busbw is
// comparable with the hardware's peak link bandwidth).

#include <optional>
#include <string_view>

namespace ctwin::calibration {

enum class NcclOp { kAllReduce, kAllGather, kReduceScatter, kAlltoall, kBroadcast, kReduce, kSendrecv };

/// "all_reduce", "all_gather", ... as nccl-tests names its binaries (without "_perf").
[[nodiscard]] std::string_view nccl_op_name(NcclOp op);

/// The op named `name` ("all_reduce"; "all_reduce_perf" and "all_reduce_perf_mpi" too);
/// nullopt when nccl-tests has no such collective here.
[[nodiscard]] std::optional<NcclOp> parse_nccl_op(std::string_view name);

/// "all_reduce, all_gather, ..." for error messages.
[[nodiscard]] std::string_view nccl_op_choices();

/// nccl-tests' busbw / algbw ratio for `ranks` ranks: all_reduce 2(n-1)/n; all_gather,
/// reduce_scatter and alltoall (n-1)/n; broadcast, reduce and sendrecv 1. `ranks` must be >= 1.
[[nodiscard]] double busbw_factor(NcclOp op, int ranks);

}  // namespace ctwin::calibration
