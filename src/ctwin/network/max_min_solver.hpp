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
//
// Flows that share no link, directly or through other flows, do not interact: (1) and (2) for
// a flow involve only the flows of its connected part (flows joined through shared links), so
// each part's rates are its own max-min allocation. solve_growing() uses that twice. A large
// problem is solved part by part, which keeps each part's rounds short (most parts are a few
// flows colliding on a link) instead of one heap over everything. And when a problem grows
// between calls (the flow model adds flows until its boundary checks pass), only the parts the
// new flows touch are solved again; the others' inputs did not change, so neither do their
// rates. Both give the same rates to the bit as one solve of the whole: progressive filling
// within a part takes the same (share, index) minima in the same order whatever happens in
// other parts, as long as the part keeps its flows and links in the same relative order, and
// every subtraction from a link's remaining capacity comes from a flow of its own part.

#include <cstdint>
#include <limits>
#include <span>
#include <vector>


namespace ctwin::network {

class MaxMinSolver {
 public:
  /// Problems with up to `scan_limit` links plus flows find each round's smallest share by a
  /// scan, larger ones by a heap; the results are identical, only the speed differs. The
  /// scan, which needs no setup, wins up to about a hundred (measured on the flow bench case).
  /// solve_growing() splits problems of more than `split_limit` links plus flows into their
  /// connected parts; smaller ones are solved whole. Again only the speed differs.
  explicit MaxMinSolver(std::size_t scan_limit = 96, std::size_t split_limit = 64)
      : scan_limit_(scan_limit), split_limit_(split_limit) {}

  /// Flow f crosses links `links[offsets[f] .. offsets[f+1])` and runs at most `caps[f]`;
  /// link l offers `capacity[l]` bytes/s. Links are numbered densely by the caller (a problem
  /// over a few links of a large fabric is renumbered first), so every link index is below
  /// capacity.size(). Writes r_f into `rates[f]`. Caps must be positive and finite.
  void solve(std::span<const std::uint32_t> offsets, std::span<const std::uint32_t> links,
             std::span<const double> capacity, std::span<const double> caps, std::span<double> rates);

  /// The same rates as solve(), for a problem that grows from call to call. With `first_new`
  /// 0 the problem is new. Otherwise flows below `first_new` and links below the previous
  /// call's link count are the previous call's, numbered as before, with the same paths and
  /// caps; later flows and links are new; capacities changed only on links that new flows
  /// cross; and `rates` still holds what the previous call wrote. Then only the connected parts
  /// that new flows touch are solved again (see above), and resolved() tells which links they
  /// cover.
  void solve_growing(std::span<const std::uint32_t> offsets, std::span<const std::uint32_t> links,
                     std::span<const double> capacity, std::span<const double> caps, std::span<double> rates,
                     std::size_t first_new);
  /// Whether the last solve_growing() solved the part that holds `link` (a local index).
  [[nodiscard]] bool resolved(std::uint32_t link) const { return all_resolved_ || resolved_[find(link)] != 0; }

 private:
  static constexpr std::uint32_t kNone = ~std::uint32_t{0};
  static constexpr double kNoShare = std::numeric_limits<double>::infinity();  // a link with no unfrozen flow

  /// Rounds that each find the smallest share by scanning every link and flow: no setup, the
  /// fastest way for a few dozen.
  void solve_by_scan(std::span<const std::uint32_t> offsets, std::span<const std::uint32_t> links,
                     std::span<const double> caps, std::span<double> rates);
  /// The same for more flows than bits in a word: a link's flows are found by searching paths.
  void solve_by_scan_wide(std::span<const std::uint32_t> offsets, std::span<const std::uint32_t> links,
                          std::span<const double> caps, std::span<double> rates);
  /// The same rounds with the shares in a heap and each link's flows listed up front.
  void solve_by_heap(std::span<const std::uint32_t> offsets, std::span<const std::uint32_t> links,
                     std::span<const double> caps, std::span<double> rates);
  /// Scans: the link with the smallest share (remaining capacity / unfrozen flows) below
  /// `best_share`, the lowest index on ties, lowering `best_share` to it; kNone if none is.
  [[nodiscard]] std::uint32_t smallest_share(double& best_share) const;
  /// Freezes flow f at `rate` and charges it to each link it crosses.
  void freeze(std::span<const std::uint32_t> offsets, std::span<const std::uint32_t> links, std::uint32_t f,
              double rate, std::span<double> rates);

  /// Root of `link`'s part, halving the path on the way (the parents are scratch, so a const
  /// query may shorten them).
  [[nodiscard]] std::uint32_t find(std::uint32_t link) const;
  void unite_links_of_flows(std::span<const std::uint32_t> offsets, std::span<const std::uint32_t> links,
                            std::size_t first, std::size_t last);

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
  std::vector<std::uint64_t> flow_bits_;  // scans of up to 64 flows: per link, the flows crossing it
  std::size_t scan_limit_;
  std::size_t split_limit_;
  std::vector<Share> heap_;

  // solve_growing(): a union-find of links into parts, kept across calls as the problem grows
  // (it covers the first `united_flows_` flows), and the parts being solved again.
  mutable std::vector<std::uint32_t> parent_;
  std::size_t united_flows_ = 0;
  bool all_resolved_ = true;
  std::vector<std::uint8_t> resolved_;  // per root: its part is being solved again
  std::vector<std::uint32_t> part_of_root_;
  std::vector<std::uint32_t> part_flow_start_;
  std::vector<std::uint32_t> part_flows_;
  std::vector<std::uint32_t> part_link_start_;
  std::vector<std::uint32_t> part_links_;
  std::vector<std::uint32_t> renumbered_;  // per link: its index within its part
  // One part's problem, numbered from 0.
  std::vector<std::uint32_t> sub_offsets_;
  std::vector<std::uint32_t> sub_links_;
  std::vector<double> sub_capacity_;
  std::vector<double> sub_caps_;
  std::vector<double> sub_rates_;
};

}  // namespace ctwin::network
