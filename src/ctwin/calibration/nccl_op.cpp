#include "ctwin/calibration/nccl_op.hpp"

#include <array>
#include <utility>

#include "ctwin/core/error.hpp"

namespace ctwin::calibration {
namespace {

constexpr std::array<std::pair<NcclOp, std::string_view>, 7> kNames{{
    {NcclOp::kAllReduce, "all_reduce"},
    {NcclOp::kAllGather, "all_gather"},
    {NcclOp::kReduceScatter, "reduce_scatter"},
    {NcclOp::kAlltoall, "alltoall"},
    {NcclOp::kBroadcast, "broadcast"},
    {NcclOp::kReduce, "reduce"},
    {NcclOp::kSendrecv, "sendrecv"},
}};

}  // namespace

std::string_view nccl_op_name(NcclOp op) {
  for (const auto& [known, name] : kNames) {
    if (known == op) return name;
  }
  CTWIN_ASSERT(false, "every NcclOp has a name");
  return {};
}

std::optional<NcclOp> parse_nccl_op(std::string_view name) {
  for (const std::string_view suffix : {"_perf_mpi", "_perf"}) {
    if (name.ends_with(suffix)) {
      name.remove_suffix(suffix.size());
      break;
    }
  }
  for (const auto& [op, known] : kNames) {
    if (known == name) return op;
  }
  return std::nullopt;
}

std::string_view nccl_op_choices() {
  return "all_reduce, all_gather, reduce_scatter, alltoall, broadcast, reduce, sendrecv";
}

double busbw_factor(NcclOp op, int ranks) {
  CTWIN_ASSERT(ranks >= 1, "a collective has at least one rank");
  const double n = ranks;
  switch (op) {
    case NcclOp::kAllReduce: return 2 * (n - 1) / n;
    case NcclOp::kAllGather:
    case NcclOp::kReduceScatter:
    case NcclOp::kAlltoall: return (n - 1) / n;
    case NcclOp::kBroadcast:
    case NcclOp::kReduce:
    case NcclOp::kSendrecv: return 1;
  }
  CTWIN_ASSERT(false, "every NcclOp has a factor");
  return 1;
}

}  // namespace ctwin::calibration
