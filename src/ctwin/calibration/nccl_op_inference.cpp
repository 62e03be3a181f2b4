#include "ctwin/calibration/nccl_op_inference.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <set>
#include <vector>

#include "ctwin/core/error.hpp"

namespace ctwin::calibration {

std::optional<NcclOp> op_from_file_name(const std::string& path) {
  std::string stem = std::filesystem::path(path).stem().string();
  std::transform(stem.begin(), stem.end(), stem.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  // "reduce" is part of "all_reduce" and "reduce_scatter": a name counts only where no longer
  // name covers it, so the longer names are matched first and blanked out.
  const std::vector<std::pair<std::string, NcclOp>> names = {
      {"reduce_scatter", NcclOp::kReduceScatter}, {"reducescatter", NcclOp::kReduceScatter},
      {"all_reduce", NcclOp::kAllReduce},         {"allreduce", NcclOp::kAllReduce},
      {"all_gather", NcclOp::kAllGather},         {"allgather", NcclOp::kAllGather},
      {"alltoall", NcclOp::kAlltoall},            {"all_to_all", NcclOp::kAlltoall},
      {"broadcast", NcclOp::kBroadcast},          {"sendrecv", NcclOp::kSendRecv},
      {"reduce", NcclOp::kReduce}};
  std::set<NcclOp> found;
  for (const auto& [name, op] : names) {
    for (std::size_t at = stem.find(name); at != std::string::npos; at = stem.find(name, at)) {
      found.insert(op);
      stem.replace(at, name.size(), std::string(name.size(), ' '));
    }
  }
  if (found.size() != 1) return std::nullopt;
  return *found.begin();
}

NcclOp infer_nccl_op(const NcclLog& log, int ranks) {
  if (log.op) return *log.op;
  if (const auto named = op_from_file_name(log.source)) return *named;
  const std::string ask = ": give --op (" + std::string(nccl_op_choices()) + ")";
  if (log.rows.empty() || ranks < 1) throw InputError(log.source, "", "does not say which collective it timed" + ask);
  bool rooted = false;
  bool reduces = false;
  bool known_redop = false;
  double ratio = 0;
  for (const auto& row : log.rows) {
    if (row.root && *row.root >= 0) rooted = true;
    if (!row.redop.empty()) {
      known_redop = true;
      reduces = reduces || row.redop != "none";
    }
    // The largest row: its printed figures carry the most digits.
    if (row.out_of_place.algbw_GBps > 0) ratio = row.out_of_place.busbw_GBps / row.out_of_place.algbw_GBps;
  }
  const double n = ranks;
  const auto near = [&](double factor) { return ratio > 0 && std::abs(ratio / factor - 1) < 0.02; };
  if (!known_redop) {
    throw InputError(log.source, "", "does not say which collective it timed (no <op>_perf line, no redop column)" + ask);
  }
  if (rooted) return reduces ? NcclOp::kReduce : NcclOp::kBroadcast;
  if (reduces && near(2 * (n - 1) / n)) return NcclOp::kAllReduce;
  if (reduces && near((n - 1) / n)) return NcclOp::kReduceScatter;
  if (!reduces && ranks > 2 && near(1)) return NcclOp::kSendRecv;
  if (!reduces && near((n - 1) / n)) {
    throw InputError(log.source, "", "is an all_gather or an alltoall (they print alike) and its name says neither" + ask);
  }
  throw InputError(log.source, "", "does not say which collective it timed and its busbw / algbw matches none on " +
                                       std::to_string(ranks) + " ranks" + ask);
}

}  // namespace ctwin::calibration
