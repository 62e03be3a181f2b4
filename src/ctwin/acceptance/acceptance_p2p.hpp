#pragma once
// Point-to-point tests of an acceptance plan as ib_send_bw or nccl-tests' sendrecv run them: one
// pair at a time, alone on the fabric. A transfer alone on the flow model drains at its path's
// slowest achieved link rate after the path's latency, so a pair's time is that closed form
// (tests check it against the flow model, on healthy and degraded fabrics). Capacity factors per
// link stand for degraded parts without rebuilding the fabric for each suspect.

#include <string>
#include <vector>

#include "ctwin/acceptance/acceptance_plan.hpp"
#include "ctwin/fabric/fabric.hpp"

namespace ctwin::api {

struct GpuPair {
  fabric::GpuId src = 0;
  fabric::GpuId dst = 0;
  friend bool operator==(const GpuPair&, const GpuPair&) = default;
};

/// "12->40".
[[nodiscard]] std::string pair_label(const GpuPair& pair);
/// Reads "SRC->DST"; nullopt when malformed.
[[nodiscard]] std::optional<GpuPair> parse_pair_label(const std::string& text);

/// Which class a pair's path belongs to: same node; same leaf; another leaf of the same
/// scalable unit; another scalable unit.
[[nodiscard]] PathClass path_class(const fabric::Fabric& fabric, const GpuPair& pair);

/// Every pair a full test of the class measures, each NIC (or GPU, in a node) sending once and
/// receiving once: GPU g to g+1 in each node; node 2i's rail r with node 2i+1's same rail, both
/// ways; node 2i's rail r to node 2i+1's rail r+1, both ways; node i to node i + nodes per unit,
/// same rail. Empty when the build has no such path (one node; one scalable unit).
[[nodiscard]] std::vector<GpuPair> class_pairs(const fabric::Fabric& fabric, PathClass path);

/// A pair's time for `size` bytes alone on the fabric, each link's achieved rate multiplied by
/// `factors[link]` when `factors` is not empty.
[[nodiscard]] SimTime p2p_time(const fabric::Fabric& fabric, const GpuPair& pair, Bytes size,
                               const std::vector<double>& factors = {});
/// The same on a route already computed.
[[nodiscard]] SimTime p2p_time(const fabric::Fabric& fabric, const std::vector<fabric::LinkId>& route, Bytes size,
                               const std::vector<double>& factors = {});

/// The p2p metric of `test` from a time: bandwidth in GB/s (1e9 B/s, as perftest and nccl-tests
/// print it) or latency in us.
[[nodiscard]] double p2p_metric(const AcceptanceTest& test, SimTime time);

}  // namespace ctwin::api
