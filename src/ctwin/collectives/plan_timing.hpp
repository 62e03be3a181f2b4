#pragma once
// Playing a plan on a network model, two ways.
//
// Steady state (the default, "scale by structure"): each phase's step is simulated once, all
// its transfers at once on the real fabric with their contention, at a reference size (on
// `analytical`, not simulated: each transfer drains in the time the busiest link of its path
// needs for all the step puts on it, which flow's fair sharing equals when those are alike). In the
// fluid model, transfers that start together with sizes in fixed proportion drain at times
// that scale with the size, so one simulation gives every size of a sweep:
//   x_t(S) = latency_t + drain_t · S / S_ref / share          (transfer t of a step)
//   phase(S) = max( max_t (first_t + repeat · x_t), repeat · (mean_t x_t + hop) ) + rest
//   time(S) = max( base latency + Σ phase(S), base latency + S · bus bytes per byte / ceiling )
// the last term being NCCL's ceiling on the protocol's bus bandwidth, where it has one.
// hop is the mean pipeline latency of the phase's hops for the protocol. Each connection
// moves its steps in order, after waiting once for the latency that starts it (first_t: its
// own hop, or for a pipelined phase the mean hop, the depth being paid as one); data advances
// one hop per step (the second bound). rest is a pipelined phase's depth beyond one hop.
// A sweep asks for every size and protocol, and a phase may hold a million transfers, so the
// profile keeps only what the formula reads: the sums of latencies and drains, the count of
// hops per class, and for the max, per hop class, the transfers no other transfer beats on
// both latency and drain (each x_t is a line in S; the max of all lines is the max of those).
// Every transfer: every step of every phase is simulated, each transfer waiting for the data
// its source received in the step before, and for its hop's latency. Slow, for checking the
// steady state on small cases.
//
// Where the two differ: a ring across nodes mixes fast NVLink hops with a slow network hop.
// Played step by step, its channels drift out of phase (the slow connection throttles them
// and each NVLink then carries channels at different points of their rings), so a transfer
// shares its links with fewer others than when every transfer starts together, as the steady
// state simulates them. How far they drift depends on the ratio of hop latency to drain, that
// is on the size, which one simulation scaled linearly cannot see; see README, Communication
// twin.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "ctwin/collectives/plan.hpp"
#include "ctwin/network/network_model.hpp"

namespace ctwin::collectives {

class PlanProfile {
 public:
  /// Simulates each phase of `plan` once on `network` (flow), or bounds it by its links' loads
  /// (analytical).
  PlanProfile(const Plan& plan, const fabric::Fabric& fabric, network::ModelKind network);

  [[nodiscard]] SimTime time(Bytes size, Protocol protocol, const CollectiveTuning& tuning) const;

  /// What filling a pipelined phase (a tree, NVLS, a chain) costs before its chunks flow at the
  /// steady rate: (depth − 1) chunks of NCCL's size (pipeline_chunk), each at the pace of the
  /// phase's slowest transfer. Zero for rings. Kept apart from time() so that the every-transfer
  /// executor, which moves whole steps, gets the same term.
  [[nodiscard]] SimTime pipeline_fill(Bytes size, Protocol protocol, const CollectiveTuning& tuning) const;

  /// Engine events the simulations took (transfers started and arrived, rate changes).
  [[nodiscard]] std::uint64_t events() const { return events_; }

 private:
  // x_t(S) = latency + drain · S / share, S in bytes; drain is per byte of the collective.
  struct Line {
    double latency_s = 0;
    double drain_s_per_byte = 0;
  };
  // Transfers of one hop class that get one payload share (whole paths, or legs into and out
  // of an NVSwitch).
  struct ShareGroup {
    std::vector<Line> front;  // the lines that are the max somewhere: drain down, latency up
    double latency_sum_s = 0;
    double drain_sum_s_per_byte = 0;
    std::size_t count = 0;
    double slowest_s_per_transfer_byte = 0;  // the pipeline's pace: its slowest hop
  };
  struct PhaseProfile {
    // [share group · 3 + HopClass]: share group 0 whole paths, 1 switch legs.
    std::array<ShareGroup, 6> groups;
    std::array<std::size_t, 3> hop_counts{};  // transfers per HopClass
    std::size_t transfers = 0;
    int repeat = 1;
    int latency_hops = 1;
    std::array<int, 3> pipeline_hops{};
    bool pipelined = false;
  };
  [[nodiscard]] static std::size_t share_group(const PlannedTransfer& transfer);
  [[nodiscard]] static std::size_t group_of(const PlannedTransfer& transfer);
  [[nodiscard]] static double payload_share(const ProtocolCost& cost, std::size_t group);
  [[nodiscard]] static std::vector<Line> undominated(std::vector<Line> lines);

  CostContext context_;
  std::vector<PhaseProfile> phases_;
  std::uint64_t events_ = 0;
};

/// Every-transfer execution of `plan` for one size.
[[nodiscard]] SimTime run_every_transfer(const Plan& plan, const fabric::Fabric& fabric, network::ModelKind network,
                                         Bytes size, Protocol protocol, const CollectiveTuning& tuning);

}  // namespace ctwin::collectives
