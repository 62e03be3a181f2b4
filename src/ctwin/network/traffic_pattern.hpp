#pragma once
// Named traffic patterns over a built fabric, and a runner that plays one through a network
// model and reports when each transfer completed. The patterns are the ones that expose a
// fabric's weak spots: all-to-all across oversubscribed tiers, incast into one NIC,
// cross-rail traffic without PXN, and chains of shifted exchanges at scale.

#include <cstdint>
#include <string>
#include <vector>

#include "ctwin/network/network_model.hpp"

namespace ctwin::network {

struct PlannedTransfer {
  TransferRequest request;
  /// Index of the transfer whose completion starts this one; -1 starts it at time zero.
  std::int64_t after = -1;
};

struct TrafficPattern {
  std::string name;
  std::vector<PlannedTransfer> transfers;
};

struct PatternOptions {
  Bytes size;
  bool pxn = false;
  /// alltoall_chain: exchanges per GPU, one after the other.
  int steps = 8;
  /// Flows per GPU pair with distinct flow labels (NCCL channels); spreads ECMP. Each pair's
  /// `size` is split over its flows (size / K each, the remainder one byte per flow).
  int flows_per_pair = 1;
};

/// The pattern names make_pattern accepts, with a one-line description each.
[[nodiscard]] std::vector<std::pair<std::string, std::string>> pattern_catalog();

/// Builds a pattern over all GPUs of `fabric`. Throws InputError naming `--pattern` for an
/// unknown name or one the build is too small for.
[[nodiscard]] TrafficPattern make_pattern(const std::string& name, const fabric::Fabric& fabric,
                                          const PatternOptions& options);

struct TrafficResult {
  std::vector<SimTime> completed_at;  ///< per transfer
  SimTime makespan;
  TransferStats stats;
  std::uint64_t events = 0;  ///< engine events processed
};

/// Plays `pattern` on a fresh run of `model` (whose simulator must be at time zero).
[[nodiscard]] TrafficResult run_pattern(NetworkModel& model, const TrafficPattern& pattern);

}  // namespace ctwin::network
