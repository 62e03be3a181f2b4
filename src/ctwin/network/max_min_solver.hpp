#pragma once
// Max-min fair rates for flows over capacitated links, by progressive filling.
//
// Given links l with capacity C_l and flows f, each crossing the set of links L_f, find rates
// r_f such that
//   (1) sum_{f : l in L_f} r_f <= C_l                          for every link l   (capacity)
//   (2) every flow f has a bottleneck link b in L_f that is saturated,
//       sum_{g : b in L_g} r_g = C_b, and on which r_f = max_{g : b in L_g} r_g  (fairness)
// This allocation is unique: no flow can get faster without slowing one that is no faster.
// Progressive filling reaches it: repeatedly take the link with the smallest fair share
// s_l = (C_l - frozen rates on l) / (unfrozen flows on l), freeze its unfrozen flows at s_l,
// and charge s_l to every other link they cross. Each flow is frozen once; with a heap of
// shares (lazily invalidated) the cost is O(sum_f |L_f| log L).
// A flow may also carry its own cap c_f (r_f <= c_f), handled as a private link: a flow frozen
// at its cap has that cap as its bottleneck.
// Reference: D. Bertsekas and R. Gallager, Data Networks, 2nd ed., section 6.5.2.

#include <cstdint>
#include <span>
#include <vector>

#include "ctwin/fabric/elements.hpp"

namespace ctwin::network {

class MaxMinSolver {
 public:
  /// `link_count`: the number of link ids of the fabric.
  explicit MaxMinSolver(std::size_t link_count);

  /// Flow f crosses links `links[offsets[f] .. offsets[f+1])` and runs at most `caps[f]`;
  /// link l offers `capacity_of_link[l]` bytes/s (indexed by link id). Writes r_f into
  /// `rates[f]`. Caps must be positive and finite.
  void solve(std::span<const std::uint32_t> offsets, std::span<const fabric::LinkId> links,
             std::span<const double> capacity_of_link, std::span<const double> caps, std::span<double> rates);

 private:
  struct Share {
    double share;
    std::uint32_t link;  // local index; link_count + f for flow f's own cap
    std::uint32_t version;
  };

  std::vector<std::int32_t> local_of_link_;  // -1 when not used by the current problem
  // Per local link, reset every solve.
  std::vector<fabric::LinkId> touched_;
  std::vector<double> remaining_;
  std::vector<std::uint32_t> unfrozen_;
  std::vector<std::uint32_t> version_;
  std::vector<std::uint32_t> flows_start_;
  std::vector<std::uint32_t> flows_of_link_;
  std::vector<std::uint32_t> local_links_;
  std::vector<std::uint8_t> frozen_;
  std::vector<Share> heap_;
};

}  // namespace ctwin::network
