#include "ctwin/calibration/nccl_op.hpp"

#include "ctwin/core/error.hpp"

namespace ctwin::calibration {

std::optional<NcclOp> parse_nccl_op(std::string_view name) {
  for (const std::string_view suffix : {"_perf_mpi", "_perf"}) {
    if (name.ends_with(suffix)) {
      name.remove_suffix(suffix.size());
      break;
    }
  }
  try {
    return collectives::parse_op(name);
  } catch (const InputError&) {
    return std::nullopt;
  }
}

std::string_view nccl_op_choices() {
  return "all_reduce, all_gather, reduce_scatter, alltoall, broadcast, reduce, sendrecv";
}

}  // namespace ctwin::calibration
