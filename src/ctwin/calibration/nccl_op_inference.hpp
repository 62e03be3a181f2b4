#pragma once
// Which collective a nccl-tests log timed when it does not say. Only newer nccl-tests print
// "# Collective test starting: all_reduce_perf"; older ones and a log saved without its command
// line name no op, and `calibrate --nccl` used to ask for `--op` on them. What the log shows
// decides instead, in this order:
//   1. the file's name, when it names one collective (all_reduce.log, h100-allgather-16.txt);
//   2. the columns nccl-tests prints per op: a root >= 0 only for broadcast and reduce; a redop
//      "none" for the collectives that reduce nothing; and busbw / algbw, which nccl-tests sets to
//      2(n-1)/n for all_reduce, (n-1)/n for reduce_scatter, all_gather and alltoall, and 1 for
//      broadcast, reduce and sendrecv (n ranks).
// all_gather and alltoall print alike; a log of either that its name does not tell apart is an
// InputError asking for --op.

#include <optional>
#include <string>

#include "ctwin/calibration/nccl_log.hpp"

namespace ctwin::calibration {

/// The op named by the file name `path` (its stem), if exactly one collective is named.
[[nodiscard]] std::optional<NcclOp> op_from_file_name(const std::string& path);

/// The op of `log` on `ranks` ranks: its own `<op>_perf` name, else the file name, else its
/// columns. Throws InputError naming the file when none of them decides.
[[nodiscard]] NcclOp infer_nccl_op(const NcclLog& log, int ranks);

}  // namespace ctwin::calibration
