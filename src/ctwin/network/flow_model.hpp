#pragma once
// Transfers as fluid flows sharing links max-min fairly (see max_min_solver.hpp). A flow drains
// at its rate, then its last byte reaches the destination after the path's latency, so a lone
// flow takes latency + size / bottleneck, exactly as `analytical`.
//
// Rates are re-solved when flows start or drain, all changes at one instant together, and only
// where they can matter: a change on link l can move the rates of other flows only through
// links that are saturated (a flow is limited by its saturated bottleneck, never by a link with
// spare capacity). So the solve covers the flows reachable from the changed flows through
// saturated links, with every other flow's rate held fixed and subtracted from capacities.
// If the new rates saturate a link at the edge of that set on which an outside flow runs
// faster than the set's flows, fairness there needs the outside flow too: the set grows and is
// solved again, until max-min fairness holds everywhere. The result equals a full re-solve
// (a test checks this); the cost follows the size of the disturbance, not of the fabric.
//
// Links that cannot bind are left out altogether: each flow runs at most at its path's slowest
// link (its cap), so a link whose flows' caps add up to no more than its capacity never limits
// anyone. Dropping such constraints leaves the max-min allocation unchanged; in a non-blocking
// fabric it leaves only the links where ECMP, incast or oversubscription actually collide.

#include <optional>

#include "ctwin/network/max_min_solver.hpp"
#include "ctwin/network/network_model.hpp"

namespace ctwin::network {

struct FlowModelOptions {
  /// Re-solve only the part of the network a change reaches (see above); false re-solves all
  /// flows every time (slow, for tests).
  bool incremental = true;
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
  /// Bytes that have crossed each link so far (a flow counts as it drains).
  [[nodiscard]] const std::vector<double>& link_bytes() const { return link_bytes_; }

 private:
  struct Flow {
    double remaining = 0;  // bytes, as of settled_at
    double rate = 0;       // bytes/s
    double solved_rate = 0;  // the rate the solve in progress proposes
    double cap = 0;          // the path's slowest link, bytes/s
    SimTime settled_at;
    SimTime latency;
    Bytes size;
    std::vector<fabric::LinkId> path;
    std::vector<std::uint32_t> position_in_link;  // index of this flow in flows_on_link_[path[i]]
    Completion done;
    std::uint32_t version = 0;
    bool active = false;
  };
  struct Drain {
    SimTime at;
    std::uint32_t flow;
    std::uint32_t version;
  };

  /// Could the flows on `link` want more than it has? Only such links enter solves.
  [[nodiscard]] bool binding(fabric::LinkId link) const;
  [[nodiscard]] bool saturated(fabric::LinkId link) const;
  void settle(Flow& flow);
  void detach(std::uint32_t id);
  void request_solve();
  void solve();
  void collect_component();
  void expand_from(fabric::LinkId link);
  bool grow_at_unfair_boundary();
  void schedule_next_drain();
  void drain();
  void deliver(Flow& flow);

  FlowModelOptions options_;
  MaxMinSolver solver_;
  std::vector<double> capacity_;
  std::vector<double> load_;    // sum of rates per link
  std::vector<double> demand_;  // sum of caps per link
  std::vector<double> residual_;
  std::vector<double> link_bytes_;
  std::vector<std::vector<std::uint32_t>> flows_on_link_;

  std::vector<Flow> flows_;
  std::vector<std::uint32_t> free_ids_;
  std::size_t active_ = 0;

  // Changes since the last solve.
  std::vector<std::uint32_t> new_flows_;
  std::vector<fabric::LinkId> seed_links_;

  // Scratch for one solve.
  std::vector<std::uint8_t> in_link_set_;
  std::vector<std::uint8_t> in_flow_set_;
  std::vector<fabric::LinkId> component_links_;
  std::vector<std::uint32_t> component_flows_;
  std::vector<fabric::LinkId> frontier_;
  std::vector<fabric::LinkId> boundary_links_;
  std::vector<std::uint32_t> offsets_;
  std::vector<fabric::LinkId> links_;
  std::vector<double> caps_;
  std::vector<double> rates_;

  std::vector<Drain> drains_;  // min-heap, stale entries skipped by version
  bool solve_pending_ = false;
  std::optional<engine::EventId> drain_event_;
  SimTime drain_event_at_;
  std::uint64_t solves_ = 0;
  std::uint64_t solved_flows_ = 0;
};

}  // namespace ctwin::network
