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


namespace ctwin::network {

class MaxMinSolver {
 public:
  /// Problems with up to `scan_limit` links plus flows find each round's smallest share by a
  /// scan, larger ones by a heap; the results are identical, only the speed differs. The
  /// scan, which needs no setup, wins up to about a hundred (measured on the flow bench case).
  explicit MaxMinSolver(std::size_t scan_limit = 96) : scan_limit_(scan_limit) {}

  /// Flow f crosses links `links[offsets[f] .. offsets[f+1])` and runs at most `caps[f]`;
  /// link l offers `capacity[l]` bytes/s. Links are numbered densely by the caller (a problem
  /// over a few links of a large fabric is renumbered first), so every link index is below
  /// capacity.size(). Writes r_f into `rates[f]`. Caps must be positive and finite.
  void solve(std::span<const std::uint32_t> offsets, std::span<const std::uint32_t> links,
             std::span<const double> capacity, std::span<const double> caps, std::span<double> rates);

 private:
  static constexpr std::uint32_t kNone = ~std::uint32_t{0};

  /// Rounds that each find the smallest share by scanning every link and flow: no setup, the
  /// fastest way for a few dozen.
  void solve_by_scan(std::span<const std::uint32_t> offsets, std::span<const std::uint32_t> links,
                     std::span<const double> caps, std::span<double> rates);
  /// The same rounds with the shares in a heap and each link's flows listed up front.
  void solve_by_heap(std::span<const std::uint32_t> offsets, std::span<const std::uint32_t> links,
                     std::span<const double> caps, std::span<double> rates);
  /// Freezes flow f at `rate` and charges it to each link it crosses.
  void freeze(std::span<const std::uint32_t> offsets, std::span<const std::uint32_t> links, std::uint32_t f,
              double rate, std::span<double> rates);

  struct Share {
    double share;
    std::uint32_t link;  // local index; link_count + f for flow f's own cap
    std::uint32_t version;
  };

  // Per link (per flow for frozen_), reset every solve; the rest only for heap solves.
  std::vector<double> remaining_;
  std::vector<std::uint32_t> unfrozen_;
  std::vector<std::uint32_t> version_;
  std::vector<std::uint32_t> flows_start_;
  std::vector<std::uint32_t> flows_of_link_;
  std::vector<std::uint8_t> frozen_;
  std::size_t scan_limit_;
  std::vector<Share> heap_;
};

}  // namespace ctwin::network
