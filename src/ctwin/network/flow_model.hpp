#pragma once
// Transfers as fluid flows sharing links max-min fairly (see max_min_solver.hpp). A flow drains
// at its rate, then its last byte reaches the destination after the path's latency, so a lone
// flow takes latency + size / bottleneck, exactly as `analytical`.
//
// Rates are re-solved when flows start or drain, all changes at one instant together, and only
// where they can matter. The solve starts from the flows that changed and the flows sharing a
// saturated link with them (a flow that leaves frees capacity there; one that arrives takes
// some), with every other flow's rate held fixed and subtracted from capacities. The result is
// max-min fair overall exactly when each link shared with an outside flow passes two checks:
// an inside flow limited there is not slower than the outside flows, and an outside flow that
// was limited there still is (the link stays full, no inside flow overtakes it). A link that
// fails joins the set with all its flows and the set is solved again: only its connected
// parts that the newcomers touch, since the others' inputs did not change (max_min_solver.hpp),
// and only their links are checked again. The result equals a full re-solve (tests check
// this on mixed and random patterns); the cost follows how far a change actually spreads, not
// the size of the fabric or of the saturated region.
//
// Links that cannot bind are left out altogether: each flow runs at most at its path's slowest
// link (its cap), so a link whose flows' caps add up to no more than its capacity never limits
// anyone. Dropping such constraints leaves the max-min allocation unchanged; in a non-blocking
// fabric it leaves only the links where ECMP, incast or oversubscription actually collide.
// Each flow keeps a bit per hop saying which of its links bind, so solves never touch the rest.
// Links in lockstep with a slower one (fabric/lockstep.hpp: every route crosses both or
// neither) are not tracked at all: a flow's path keeps only the slowest of each such set,
// which stands for the set's latency and bytes too.
//
// Flows slower than every change are held too. Progressive filling raises all rates together
// and freezes a flow when one of its links fills. A flow leaving at rate r only lowered the
// load of links that had not filled below level r (else it would have frozen there), so the
// filling below r, and every flow frozen there, is the same without it. A flow arriving gets
// at least min over its links of capacity / flows (a link fills only once each of its flows
// has that much), and below its own rate it fills none of its links, so again nothing frozen
// below that bound moves. So a solve may hold every flow slower than the smallest such level
// at its rate, exactly. When equal-sized flows start together (a collective's step), they
// drain fastest first, and each drain leaves the slower ones as they were: the solve that
// follows it is tiny instead of spanning the saturated fabric.

#include <array>
#include <limits>
#include <memory>
#include <optional>
#include <span>

#include "ctwin/network/detail/huge_page_allocator.hpp"
#include "ctwin/network/drain_queue.hpp"
#include "ctwin/network/link_flows.hpp"
#include "ctwin/network/max_min_solver.hpp"
#include "ctwin/network/network_model.hpp"

namespace ctwin::network {

struct FlowModelOptions {
  /// Re-solve only the part of the network a change reaches (see above); false re-solves all
  /// flows every time (slow, for tests).
  bool incremental = true;
  /// Distinct link latencies the model numbers inside its link states (at most 65,535); a
  /// fabric with more keeps every link's latency apart instead. Only the speed differs; tests
  /// lower it to take the other path.
  std::size_t latency_classes = 65535;
  /// Track one link per lockstep set (see above); false tracks every link. Only the speed
  /// differs; tests turn it off to compare.
  bool lockstep = true;
  /// Links outside the fabric that add_link() may add (a storage tier's ports): their states
  /// are allocated with the fabric's, as a link's state never moves.
  std::size_t extra_links = 0;
};

class FlowModel final : public NetworkModel {
 public:
  FlowModel(const fabric::Fabric& fabric, engine::Simulator& simulator, FlowModelOptions options = {});
  void start_transfer(const TransferRequest& request, Completion done) override;
  [[nodiscard]] std::string_view name() const override { return "flow"; }

  /// Rate solves so far and flows they covered: the measure of this model's cost.
  [[nodiscard]] std::uint64_t solves() const { return solves_; }
  [[nodiscard]] std::uint64_t solved_flows() const { return solved_flows_; }
  [[nodiscard]] std::size_t active_flows() const { return active_; }
  /// A link outside the fabric (a storage server's port, a tier's aggregate read rate), added
  /// before any flow starts, at most options.extra_links of them; its id follows the fabric's (and earlier added) links. Endpoints the
  /// fabric does not hold reach it through such links (replay/storage_reads.hpp).
  fabric::LinkId add_link(double capacity_Bps, SimTime latency);
  /// A transfer over `path` as given (fabric links and added ones), not routed: a lone one takes
  /// the path's latency + size / its slowest link, as a routed transfer.
  void start_path_transfer(std::span<const fabric::LinkId> path, Bytes size, Completion done);
  /// Starts one flow of `size` bytes over `links` (a path the caller chose, in order) that runs
  /// at most at `max_rate`: a background stream on chosen links (replay/background_traffic.hpp).
  /// Progressive filling freezes it at its cap when the cap is below its fair share, and the
  /// rest of its links goes to the others (the cap is the solver's private link,
  /// max_min_solver.hpp). Links in lockstep with another stand for it as routes do. `done` runs
  /// when its last byte has arrived, after the path's latency, as for a transfer.
  void start_capped_flow(std::span<const fabric::LinkId> links, Bytes size, Bandwidth max_rate, Completion done);
  /// Bytes that have crossed `link` so far; a flow's bytes count once it has drained.
  [[nodiscard]] double link_bytes(fabric::LinkId link) const { return links_[representative_[link]].carried; }

 private:
  // Routes this long are held inline in the flow, so walking a path touches no other memory;
  // longer ones (deep custom server layouts) spill to the heap, up to kMaxHops. Ten covers
  // every bundled topology's routes once lockstep links are left out (at most 8 of 12 links;
  // 10 on jean-zay-a100-opa), and fills the first line exactly.
  static constexpr std::size_t kInlineHops = 10;
  static constexpr std::size_t kMaxHops = 64;  // one bit per hop in Flow::binding_hops
  static_assert(kMaxHops <= FlowOnLink::kHopLimit, "a link's entry holds any hop");
  static constexpr int kLocalRounds = 3;       // rounds of one-link growth before growing wide
  static constexpr double kUncapped = std::numeric_limits<double>::infinity();

  // Three cache lines, in the order a flow's users read them. Solves read the first (which
  // hops bind, and the path); settling a rate and a drain's delivery the second; a drain's
  // list removals the third.
  struct alignas(64) Flow {
    std::uint64_t binding_hops = 0;  // bit h: the link at hop h is binding
    std::uint32_t hops = 0;
    bool active = false;
    double cap = 0;  // the path's slowest link, or the flow's own cap where lower: bytes/s
    std::array<fabric::LinkId, kInlineHops> inline_path{};
    alignas(64) double remaining = 0;  // bytes, as of settled_at
    SimTime settled_at;
    SimTime latency;
    Bytes size;
    Completion done;
    alignas(64) std::array<std::uint32_t, kInlineHops> inline_positions{};  // index in the link's flow list
    // Routes longer than kInlineHops: the positions of hops kInlineHops and on, then the whole
    // path, in one array, so the flow stays three lines.
    std::unique_ptr<std::uint32_t[]> spilled;
    std::size_t spilled_capacity = 0;
    bool part = false;  // one part of a transfer split over equal-cost paths (counted as a whole)

    [[nodiscard]] std::span<const fabric::LinkId> path() const {
      return hops <= kInlineHops ? std::span<const fabric::LinkId>(inline_path.data(), hops)
                                 : std::span<const fabric::LinkId>(spilled.get() + (hops - kInlineHops), hops);
    }
    // Found by the hop alone: a drain that moves another flow's entry in a link's list updates
    // that flow's position without reading its first line to learn its length.
    [[nodiscard]] std::uint32_t& position(std::uint32_t hop) {
      return hop < kInlineHops ? inline_positions[hop] : spilled[hop - kInlineHops];
    }
    void assign_path(const std::vector<fabric::LinkId>& links);
  };
  static_assert(sizeof(Flow) == 3 * 64, "a flow's state is three cache lines");

  // Everything a solve reads about a link, in one cache line: solves walk links scattered
  // over a fabric of hundreds of thousands, and memory latency is most of their cost.
  // `load` is kept exact only while the link is binding, the only time it is read; a link
  // that becomes binding sums its flows' rates afresh.
  struct alignas(64) LinkState {
    double capacity = 0;  // bytes/s
    double load = 0;      // sum of rates
    double demand = 0;    // sum of caps
    double carried = 0;   // bytes of drained flows
    std::int32_t local = -1;  // index in the problem being solved, -1 when not in it
    bool in_set = false;      // in the component being solved
    // The link's latency as an index into latencies_ (kOwnLatency: see link_latency_). A
    // fabric has a few distinct latencies, so a starting flow reads its path's latencies
    // from the lines it loads anyway instead of missing on a second array per hop.
    std::uint16_t latency_class = 0;
    LinkFlows flows;
  };
  static_assert(sizeof(LinkState) == 64, "a link's state fills one cache line");

  // A drained flow's last byte still in flight.
  struct Arrival {
    Completion done;
    Bytes size;
    bool counted = true;  // false for a part of a split transfer: the transfer counts once, whole
  };

  // A transfer split over equal-cost paths (adaptive routing): done once its last part arrives.
  struct Split {
    Completion done;
    Bytes size;
    std::uint32_t parts_left = 0;
  };

  /// In lockstep with a slower link (fabric/lockstep.hpp), which is tracked in its place.
  [[nodiscard]] bool folded(fabric::LinkId link) const { return (folded_[link / 64] >> (link % 64)) & 1U; }
  /// Could the flows on `link` want more than it has? Only such links enter solves.
  [[nodiscard]] bool binding(const LinkState& link) const;
  [[nodiscard]] bool saturated(const LinkState& link) const;
  void settle(Flow& flow, double rate);
  /// Starts a flow of `size` bytes over route_scratch_, at most `rate_cap` bytes/s.
  void start_flow(Bytes size, Completion done, bool part, double rate_cap = kUncapped);
  void part_arrived(std::uint32_t split);
  /// Takes a drained flow, already popped from the drain queue, off its links.
  void detach(std::uint32_t id);
  void request_solve();
  void solve();
  enum class AloneOutcome {
    kSettled,   // one round settled it: the flow has its rate
    kGrown,     // a boundary check failed: the component has grown as after the general first round
    kNotTried,  // nothing changed: the general solve takes it from its first round
  };
  /// Takes the general solve's first round for a component of the one flow `id`, without
  /// building a problem.
  AloneOutcome solve_alone(std::uint32_t id);
  /// Gives `id` its solved rate: settles its bytes, moves its links' loads and its drain time.
  void set_rate(std::uint32_t id, double rate);
  void collect_component();
  /// A flow the changes in progress cannot move: it had a rate, and it is below change_floor_.
  [[nodiscard]] bool held_by_floor(std::uint32_t id) const;
  void mark_binding(LinkState& link, bool binding);
  template <typename Visit>
  void for_each_binding_hop(const Flow& flow, Visit visit) const;
  /// Adds `link` and its flows to the component; with `through_saturated`, also every link
  /// reachable from them through saturated links, and their flows.
  void expand_from(fabric::LinkId link, bool through_saturated);
  void clear_problem();
  /// Adds the component's flows that joined since the last round to the problem.
  void extend_problem();
  bool grow_at_unfair_boundary(bool through_saturated);
  void schedule_next_drain();
  /// Starts loading what the next drain reads (see prefetched_flow_).
  void prefetch_next_drain();
  void drain();
  void deliver(Flow& flow);

  FlowModelOptions options_;
  MaxMinSolver solver_;
  template <typename T>
  using HugeVector = std::vector<T, detail::HugePageAllocator<T>>;
  HugeVector<LinkState> links_;
  static constexpr std::uint16_t kOwnLatency = 0xffff;
  // Per link, the link tracked for its lockstep set, and a bit for each link that is not.
  std::vector<fabric::LinkId> representative_;
  std::vector<std::uint64_t> folded_;
  // Distinct latencies by latency_class; a tracked link's covers its whole lockstep set.
  std::vector<SimTime> latencies_;
  // Per link, only when a fabric has more distinct latencies than classes (kOwnLatency).
  std::vector<SimTime> link_latency_;

  HugeVector<Flow> flows_;
  // Rates apart from Flow: boundary checks read the rates of many flows and nothing else.
  struct Rate {
    double current = 0;   // bytes/s
    double proposed = 0;  // what the solve in progress gives
  };
  std::vector<Rate> rate_of_;
  std::vector<std::uint8_t> in_flow_set_;
  std::vector<std::uint32_t> free_ids_;
  std::size_t active_ = 0;

  // Changes since the last solve.
  std::vector<std::uint32_t> new_flows_;
  std::vector<fabric::LinkId> seed_links_;

  // Scratch for one solve: the component, then the problem handed to the solver, over the
  // binding links of the component's flows numbered 0..n-1.
  std::vector<fabric::LinkId> component_links_;
  std::vector<std::uint32_t> component_flows_;
  std::vector<fabric::LinkId> frontier_;
  std::vector<fabric::LinkId> problem_links_;  // fabric id of each local link
  std::vector<double> residual_;               // capacity left to the component, per local link
  std::vector<std::uint32_t> offsets_;
  std::vector<std::uint32_t> local_links_;
  std::vector<double> caps_;
  std::vector<double> rates_;
  std::vector<fabric::LinkId> route_scratch_;

  std::vector<Arrival> arrivals_;
  std::vector<std::uint32_t> free_arrivals_;
  std::vector<Split> splits_;
  std::vector<std::uint32_t> free_splits_;

  DrainQueue drain_queue_;
  bool solve_pending_ = false;
  std::optional<engine::EventId> drain_event_;
  SimTime drain_event_at_;
  // The next flow to drain, as far as prefetching has gone: a drain misses on the flow and on
  // each link of its path, so each solve before it loads a stage ahead, the flow's lines at the
  // first, its links once the path is in cache.
  std::uint32_t prefetched_flow_ = ~std::uint32_t{0};
  bool prefetched_links_ = false;
  std::uint64_t solves_ = 0;
  std::uint64_t solved_flows_ = 0;
  // The lowest rate the changes since the last solve can move (see above); flows slower than
  // it keep their rates.
  double change_floor_ = kNoFloor;
  static constexpr double kNoFloor = 1e300;
};

}  // namespace ctwin::network
