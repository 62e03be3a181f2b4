#pragma once
// Playing a plan on a network model, two ways.
//
// Steady state (the default, "scale by structure"): each phase's step is simulated once, all
// its transfers at once on the real fabric with their contention, at a reference size. In the
// fluid model, transfers that start together with sizes in fixed proportion drain at times
// that scale with the size, so one simulation gives every size of a sweep:
//   x_t(S) = latency_t + drain_t · S / S_ref / share          (transfer t of a step)
//   phase(S) = repeat · max( max_t x_t, mean_t x_t + hop ) + (latency_hops − 1) · hop
//   time(S) = max( base latency + Σ phase(S), base latency + S · bus bytes per byte / ceiling )
// the last term being NCCL's ceiling on the protocol's bus bandwidth, where it has one.
// where hop is the mean pipeline latency of the phase's hops for the protocol: each
// connection moves its steps in order (the first bound), and data advances one hop per step
// (the second).
// Every transfer: every step of every phase is simulated, each transfer waiting for the data
// its source received in the step before, and for its hop's latency. Slow, for checking the
// steady state on small cases.

#include <string>
#include <vector>

#include "ctwin/collectives/plan.hpp"

namespace ctwin::collectives {

class PlanProfile {
 public:
  /// Simulates each phase of `plan` once on `network` (analytical or flow).
  PlanProfile(const Plan& plan, const fabric::Fabric& fabric, const std::string& network);

  [[nodiscard]] SimTime time(Bytes size, Protocol protocol, const CollectiveTuning& tuning) const;

 private:
  struct PhaseProfile {
    std::vector<double> latency_s;
    std::vector<double> drain_s_per_byte;  // per byte of the collective's size
    std::vector<HopClass> hops;
    std::vector<bool> switch_legs;
    int repeat = 1;
    int latency_hops = 1;
  };
  CostContext context_;
  std::vector<PhaseProfile> phases_;
};

/// Every-transfer execution of `plan` for one size.
[[nodiscard]] SimTime run_every_transfer(const Plan& plan, const fabric::Fabric& fabric, const std::string& network,
                                         Bytes size, Protocol protocol, const CollectiveTuning& tuning);

}  // namespace ctwin::collectives
