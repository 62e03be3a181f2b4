#include "ctwin/network/flow_model.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <string>

#include "ctwin/core/error.hpp"
#include "ctwin/fabric/lockstep.hpp"

namespace ctwin::network {
namespace {

// Relative slack under which a link counts as full; far above rounding, far below any
// difference that matters to a completion time.
constexpr double kSaturation = 1e-9;

// A link's rates around a component solved with every outside flow held at its rate.
struct BoundaryRates {
  double capacity;        // bytes/s
  double load_before;     // sum of current rates
  double residual;        // what the solve left the component: capacity - load_before + inside current rates
  double inside_load;     // sum of the component's proposed rates
  double inside_max;      // fastest proposed inside rate
  double inside_old_max;  // fastest current inside rate
  double outside_max;     // fastest outside rate (> 0: an outside flow is there)
};

// Whether the link breaks max-min fairness with the proposed rates (see grow_at_unfair_boundary()).
bool unfair_boundary(const BoundaryRates& r) {
  const double full_at = r.capacity * (1 - kSaturation);
  const bool full_now = r.capacity - r.residual + r.inside_load >= full_at;
  const bool full_before = r.load_before >= full_at;
  const bool inside_starved = full_now && r.outside_max > r.inside_max * (1 + kSaturation);
  const bool outside_limited_here = full_before && r.outside_max >= r.inside_old_max * (1 - kSaturation);
  const bool outside_freed = outside_limited_here && (!full_now || r.inside_max > r.outside_max * (1 + kSaturation));
  return inside_starved || outside_freed;
}

std::vector<fabric::LinkId> identity_links(const fabric::Fabric& fabric) {
  std::vector<fabric::LinkId> links(fabric.links().size());
  std::iota(links.begin(), links.end(), fabric::LinkId{0});
  return links;
}

}  // namespace

void FlowModel::Flow::assign_path(const std::vector<fabric::LinkId>& links) {
  if (links.size() > kMaxHops) {
    throw InternalError("a route of " + std::to_string(links.size()) + " links is longer than the flow model's " +
                        std::to_string(kMaxHops));
  }
  hops = static_cast<std::uint32_t>(links.size());
  binding_hops = 0;
  if (hops <= kInlineHops) {
    std::copy(links.begin(), links.end(), inline_path.begin());
  } else {
    const std::size_t needed = 2 * links.size() - kInlineHops;
    if (spilled_capacity < needed) {
      spilled = std::make_unique<std::uint32_t[]>(needed);
      spilled_capacity = needed;
    }
    std::copy(links.begin(), links.end(), spilled.get() + (links.size() - kInlineHops));
  }
}

template <typename Visit>
void FlowModel::for_each_binding_hop(const Flow& flow, Visit visit) const {
  const auto path = flow.path();
  for (std::uint64_t hops = flow.binding_hops; hops != 0; hops &= hops - 1) {
    visit(path[static_cast<std::size_t>(std::countr_zero(hops))]);
  }
}

FlowModel::FlowModel(const fabric::Fabric& fabric, engine::Simulator& simulator, FlowModelOptions options)
    : NetworkModel(fabric, simulator),
      options_(options),
      links_(fabric.links().size() + options.extra_links),
      representative_(options.lockstep ? fabric::lockstep_representatives(fabric) : identity_links(fabric)),
      folded_((fabric.links().size() + 63) / 64) {
  // Room for a flow per GPU, as a collective step or an exchange starts at once: growing by
  // doubling would copy the flows and have the kernel zero fresh pages for each copy, inside
  // the run. Reserving maps nothing yet; pages are touched as flows use them.
  const auto expected_flows = static_cast<std::size_t>(fabric.gpus());
  flows_.reserve(expected_flows);
  rate_of_.reserve(expected_flows);
  in_flow_set_.reserve(expected_flows);
  // A lockstep set is tracked as its slowest link, which carries the whole set's latency.
  std::vector<SimTime> latency(fabric.links().size());
  for (std::size_t id = 0; id < latency.size(); ++id) {
    links_[id].capacity = fabric.links()[id].achieved().bytes_per_second();
    latency[representative_[id]] += fabric.links()[id].latency;
    if (representative_[id] != id) folded_[id / 64] |= std::uint64_t{1} << (id % 64);
  }
  const std::size_t classes = std::min<std::size_t>(options_.latency_classes, kOwnLatency);
  std::map<SimTime, std::uint16_t> class_of;
  for (std::size_t id = 0; id < latency.size(); ++id) {
    const auto [known, added] = class_of.try_emplace(latency[id], static_cast<std::uint16_t>(latencies_.size()));
    if (added) latencies_.push_back(latency[id]);
    links_[id].latency_class = known->second;
    if (latencies_.size() > classes) break;
  }
  if (latencies_.size() > classes) {  // too many to number: every link keeps its own
    latencies_.clear();
    link_latency_ = std::move(latency);
    for (LinkState& link : links_) link.latency_class = kOwnLatency;
  }
}

bool FlowModel::binding(const LinkState& link) const { return link.demand > link.capacity * (1 + kSaturation); }

bool FlowModel::saturated(const LinkState& link) const {
  return binding(link) && link.load >= link.capacity * (1 - kSaturation);
}

void FlowModel::mark_binding(LinkState& link, bool binding) {
  if (binding) link.load = 0;
  for (const FlowOnLink& entry : link.flows) {
    Flow& flow = flows_[entry.flow];
    const std::uint64_t bit = std::uint64_t{1} << entry.hop;
    if (binding) {
      flow.binding_hops |= bit;
      link.load += rate_of_[entry.flow].current;
    } else {
      flow.binding_hops &= ~bit;
    }
  }
}

void FlowModel::start_transfer(const TransferRequest& request, Completion done) {
  CTWIN_ASSERT(request.size >= Bytes(0), "transfer sizes are not negative");
  ++stats_.started;
  stats_.bytes_started += request.size;
  const int parts =
      request.size > Bytes(0) ? fabric::split_route_count(fabric_, request.src, request.dst, request.route) : 1;
  if (parts == 1) {
    route_scratch_.clear();
    fabric::append_route(fabric_, request.src, request.dst, request.route, route_scratch_);
    start_flow(request.size, std::move(done), false);
    return;
  }
  // Adaptive routing: equal parts over equal-cost paths, as a sprayed transfer's packets go.
  // The parts are flows of their own, so max-min sharing and the incremental solve are
  // unchanged; the transfer is done when its last part arrives.
  std::uint32_t split = 0;
  if (free_splits_.empty()) {
    split = static_cast<std::uint32_t>(splits_.size());
    splits_.emplace_back();
  } else {
    split = free_splits_.back();
    free_splits_.pop_back();
  }
  splits_[split] = {std::move(done), request.size, static_cast<std::uint32_t>(parts)};
  const std::int64_t each = request.size.count() / parts;
  const std::int64_t rest = request.size.count() % parts;
  for (int index = 0; index < parts; ++index) {
    route_scratch_.clear();
    fabric::append_split_route(fabric_, request.src, request.dst, request.route, index, parts, route_scratch_);
    start_flow(Bytes(each + (index < rest ? 1 : 0)), [this, split] { part_arrived(split); }, true);
  }
}

fabric::LinkId FlowModel::add_link(double capacity_Bps, SimTime latency) {
  CTWIN_ASSERT(flows_.empty(), "links are added before the first flow");
  CTWIN_ASSERT(capacity_Bps > 0, "an added link carries bytes");
  const auto id = static_cast<fabric::LinkId>(representative_.size());
  CTWIN_ASSERT(id < links_.size(), "options.extra_links counts the links added");
  LinkState& added = links_[id];
  added.capacity = capacity_Bps;
  representative_.push_back(id);
  if (folded_.size() * 64 <= id) folded_.push_back(0);
  if (!link_latency_.empty()) {
    link_latency_.push_back(latency);
    added.latency_class = kOwnLatency;
    return id;
  }
  const auto known = std::find(latencies_.begin(), latencies_.end(), latency);
  if (known == latencies_.end() && latencies_.size() >= std::min<std::size_t>(options_.latency_classes, kOwnLatency)) {
    // No class left: every link keeps its own latency from now on.
    for (fabric::LinkId l = 0; l < id; ++l) link_latency_.push_back(latencies_[links_[l].latency_class]);
    link_latency_.push_back(latency);
    latencies_.clear();
    for (fabric::LinkId l = 0; l <= id; ++l) links_[l].latency_class = kOwnLatency;
    return id;
  }
  if (known == latencies_.end()) latencies_.push_back(latency);
  added.latency_class =
      static_cast<std::uint16_t>(known == latencies_.end() ? latencies_.size() - 1 : known - latencies_.begin());
  return id;
}

void FlowModel::start_path_transfer(std::span<const fabric::LinkId> path, Bytes size, Completion done) {
  start_capped_flow(path, size, Bandwidth::bytes_per_second(kUncapped), std::move(done));
}

void FlowModel::part_arrived(std::uint32_t split) {
  if (--splits_[split].parts_left > 0) return;
  Split whole = std::move(splits_[split]);
  free_splits_.push_back(split);
  ++stats_.completed;
  stats_.bytes_delivered += whole.size;
  whole.done();
}

void FlowModel::start_capped_flow(std::span<const fabric::LinkId> links, Bytes size, Bandwidth max_rate,
                                  Completion done) {
  CTWIN_ASSERT(size >= Bytes(0), "transfer sizes are not negative");
  CTWIN_ASSERT(max_rate.bytes_per_second() > 0, "a flow's cap is positive");
  ++stats_.started;
  stats_.bytes_started += size;
  // A link in lockstep with a slower one is tracked as that one, which carries its flows.
  route_scratch_.clear();
  for (const fabric::LinkId link : links) {
    const fabric::LinkId tracked = representative_[link];
    if (std::find(route_scratch_.begin(), route_scratch_.end(), tracked) == route_scratch_.end()) {
      route_scratch_.push_back(tracked);
    }
  }
  start_flow(size, std::move(done), false, max_rate.bytes_per_second());
}

void FlowModel::start_flow(Bytes size, Completion done, bool part, double rate_cap) {
  std::uint32_t id = 0;
  if (free_ids_.empty()) {
    if (flows_.size() >= FlowOnLink::kFlowLimit) {
      throw InternalError("more than " + std::to_string(FlowOnLink::kFlowLimit) + " flows in progress at once");
    }
    id = static_cast<std::uint32_t>(flows_.size());
    flows_.emplace_back();
    rate_of_.emplace_back();
    in_flow_set_.push_back(0);
  } else {
    id = free_ids_.back();
    free_ids_.pop_back();
  }
  // Links in lockstep with another on the path drop out before their states are touched.
  std::erase_if(route_scratch_, [this](fabric::LinkId link) { return folded(link); });
  // path_properties, from copies this model keeps per link: the path's link states are
  // scattered over the fabric, and this first pass fetches them all at once (their misses
  // overlap, no load depends on another) for the updates below.
  SimTime latency;
  double cap = route_scratch_.empty() ? 0 : std::numeric_limits<double>::infinity();
  for (fabric::LinkId link : route_scratch_) {
    const LinkState& state = links_[link];
    latency += state.latency_class == kOwnLatency ? link_latency_[link] : latencies_[state.latency_class];
    cap = std::min(cap, state.capacity);
  }
  Flow& flow = flows_[id];
  flow.assign_path(route_scratch_);
  flow.latency = latency;
  flow.cap = std::min(cap, rate_cap);
  flow.size = size;
  flow.done = std::move(done);
  flow.part = part;
  if (flow.hops == 0 || size == Bytes(0)) {
    deliver(flow);
    free_ids_.push_back(id);
    return;
  }
  flow.remaining = static_cast<double>(size.count());
  rate_of_[id] = {};
  flow.settled_at = simulator_.now();
  flow.active = true;
  const auto path = flow.path();
  for (std::uint32_t hop = 0; hop < path.size(); ++hop) {
    LinkState& link = links_[path[hop]];
    flow.position(hop) = link.flows.size();
    link.flows.push_back({id, hop});
    const bool was_binding = binding(link);
    link.demand += flow.cap;
    if (was_binding) {
      flow.binding_hops |= std::uint64_t{1} << hop;
    } else if (binding(link)) {
      mark_binding(link, true);
    }
  }
  ++active_;
  new_flows_.push_back(id);
  request_solve();
}

void FlowModel::deliver(Flow& flow) {
  std::uint32_t slot = 0;
  if (free_arrivals_.empty()) {
    slot = static_cast<std::uint32_t>(arrivals_.size());
    arrivals_.emplace_back();
  } else {
    slot = free_arrivals_.back();
    free_arrivals_.pop_back();
  }
  arrivals_[slot] = {std::move(flow.done), flow.size, !flow.part};
  // The event holds only the slot, so scheduling it does not allocate.
  simulator_.schedule_in(flow.latency, [this, slot] {
    Arrival arrival = std::move(arrivals_[slot]);
    free_arrivals_.push_back(slot);
    if (arrival.counted) {
      ++stats_.completed;
      stats_.bytes_delivered += arrival.size;
    }
    arrival.done();
  });
}

void FlowModel::settle(Flow& flow, double rate) {
  const SimTime now = simulator_.now();
  if (now == flow.settled_at) return;
  flow.remaining -= std::min(flow.remaining, rate * (now - flow.settled_at).seconds());
  flow.settled_at = now;
}

void FlowModel::detach(std::uint32_t id) {
  Flow& flow = flows_[id];
  const auto path = flow.path();
  const double size = static_cast<double>(flow.size.count());
  for (std::uint32_t hop = 0; hop < path.size(); ++hop) {
    LinkState& link = links_[path[hop]];
    // Its capacity frees up: flows limited there may speed up.
    if (saturated(link)) seed_links_.push_back(path[hop]);
    const bool was_binding = binding(link);
    link.load -= rate_of_[id].current;
    link.demand -= flow.cap;
    link.carried += size;
    const std::uint32_t position = flow.position(hop);
    const FlowOnLink moved = link.flows.back();
    link.flows[position] = moved;
    link.flows.pop_back();
    if (moved.flow != id) flows_[moved.flow].position(moved.hop) = position;
    if (link.flows.empty()) {
      link.load = link.demand = 0;  // drops accumulated rounding
    } else if (was_binding && !binding(link)) {
      mark_binding(link, false);
    }
  }
  change_floor_ = std::min(change_floor_, rate_of_[id].current);
  flow.active = false;
  --active_;
  free_ids_.push_back(id);
}

void FlowModel::request_solve() {
  if (solve_pending_) return;
  solve_pending_ = true;
  // Runs after every event already queued for this instant, so simultaneous changes batch.
  simulator_.schedule_in(SimTime(), [this] {
    solve_pending_ = false;
    solve();
  });
}

void FlowModel::expand_from(fabric::LinkId first, bool through_saturated) {
  if (links_[first].in_set) return;
  links_[first].in_set = true;
  component_links_.push_back(first);
  frontier_.push_back(first);
  while (!frontier_.empty()) {
    const LinkState& link = links_[frontier_.back()];
    frontier_.pop_back();
    for (const FlowOnLink& entry : link.flows) {
      if (in_flow_set_[entry.flow] || held_by_floor(entry.flow)) continue;
      in_flow_set_[entry.flow] = 1;
      component_flows_.push_back(entry.flow);
      // extend_problem() reads its path, set_rate() its bytes on the next line.
      __builtin_prefetch(&flows_[entry.flow]);
      __builtin_prefetch(reinterpret_cast<const char*>(&flows_[entry.flow]) + 64);
      if (!through_saturated) continue;
      for_each_binding_hop(flows_[entry.flow], [&](fabric::LinkId next) {
        if (!links_[next].in_set && saturated(links_[next])) {
          links_[next].in_set = true;
          component_links_.push_back(next);
          frontier_.push_back(next);
        }
      });
    }
  }
}

void FlowModel::collect_component() {
  if (!options_.incremental) {
    for (std::uint32_t id = 0; id < flows_.size(); ++id) {
      if (flows_[id].active) {
        in_flow_set_[id] = 1;
        component_flows_.push_back(id);
      }
    }
    return;
  }
  for (std::uint32_t id : new_flows_) {
    if (!flows_[id].active) continue;
    double least_share = flows_[id].cap;
    for_each_binding_hop(flows_[id], [&](fabric::LinkId link) {
      least_share = std::min(least_share, links_[link].capacity / static_cast<double>(links_[link].flows.size()));
    });
    change_floor_ = std::min(change_floor_, least_share);
  }
  for (std::uint32_t id : new_flows_) {
    if (!flows_[id].active || in_flow_set_[id]) continue;
    in_flow_set_[id] = 1;
    component_flows_.push_back(id);
    for_each_binding_hop(flows_[id], [&](fabric::LinkId link) {
      if (saturated(links_[link])) expand_from(link, false);
    });
  }
  for (fabric::LinkId link : seed_links_) expand_from(link, false);
}

bool FlowModel::held_by_floor(std::uint32_t id) const {
  // New flows have no rate yet and always join. The margin keeps flows tied with the floor
  // (equal shares of one link, up to rounding) in the solve.
  const double rate = rate_of_[id].current;
  return rate > 0 && rate < change_floor_ * (1 - kSaturation);
}

void FlowModel::clear_problem() {
  for (fabric::LinkId link : problem_links_) links_[link].local = -1;
  problem_links_.clear();
  residual_.clear();
  offsets_.assign(1, 0);
  local_links_.clear();
  caps_.clear();
}

void FlowModel::extend_problem() {
  // Flows only join the component, at its end, and outside rates and loads stay put between
  // rounds, so adding the newcomers does exactly what rebuilding the whole problem would:
  // the same link numbering and the same sums, in the same order.
  const std::size_t first = offsets_.size() - 1;
  // The newcomers' links are mostly cold: request them all before the numbering below needs
  // them one by one, so their misses overlap.
  for (std::size_t f = first; f < component_flows_.size(); ++f) {
    for_each_binding_hop(flows_[component_flows_[f]], [&](fabric::LinkId link) { __builtin_prefetch(&links_[link]); });
  }
  for (std::size_t f = first; f < component_flows_.size(); ++f) {
    const Flow& flow = flows_[component_flows_[f]];
    for_each_binding_hop(flow, [&](fabric::LinkId link_id) {
      LinkState& link = links_[link_id];
      if (link.local < 0) {
        link.local = static_cast<std::int32_t>(problem_links_.size());
        problem_links_.push_back(link_id);
        residual_.push_back(link.capacity - link.load);
        // The boundary checks after the solve read the rates of the link's flows.
        for (const FlowOnLink& entry : link.flows) __builtin_prefetch(&rate_of_[entry.flow]);
      }
      local_links_.push_back(static_cast<std::uint32_t>(link.local));
    });
    offsets_.push_back(static_cast<std::uint32_t>(local_links_.size()));
    caps_.push_back(flow.cap);
  }
  // Outside flows keep their rates: the component gets the capacity they leave, which is the
  // link's spare capacity plus what the component's own flows hold now.
  for (std::size_t f = first; f < component_flows_.size(); ++f) {
    const double rate = rate_of_[component_flows_[f]].current;
    for (std::uint32_t i = offsets_[f]; i < offsets_[f + 1]; ++i) residual_[local_links_[i]] += rate;
  }
}

bool FlowModel::grow_at_unfair_boundary(bool through_saturated) {
  if (!options_.incremental) return false;
  // The component was solved with every outside flow held at its rate. That is the max-min
  // allocation exactly when, on each link shared with outside flows,
  //   - an inside flow that the solve limited there is not slower than an outside flow on it
  //     (else it took more than its share), and
  //   - an outside flow that was limited there still is: the link stays full and no inside
  //     flow overtakes it (else it may now speed up or must slow down).
  // A link that breaks either joins the component with all its flows, and the set is solved
  // again; the set only grows, so this ends, at worst with every flow in it.
  bool grew = false;
  const std::size_t candidates = problem_links_.size();
  for (std::size_t local = 0; local < candidates; ++local) {
    // A part not solved again this round passed these checks last round, and nothing it
    // reads has changed since: a flow joining on one of its links would have joined the part.
    if (!solver_.resolved(static_cast<std::uint32_t>(local))) continue;
    const fabric::LinkId link_id = problem_links_[local];
    const LinkState& link = links_[link_id];
    if (link.in_set) continue;
    double inside_load = 0;
    double inside_max = 0;
    double inside_old_max = 0;
    double outside_max = 0;
    for (const FlowOnLink& entry : link.flows) {
      const Rate& rate = rate_of_[entry.flow];
      if (in_flow_set_[entry.flow]) {
        inside_load += rate.proposed;
        inside_max = std::max(inside_max, rate.proposed);
        inside_old_max = std::max(inside_old_max, rate.current);
      } else {
        outside_max = std::max(outside_max, rate.current);
      }
    }
    if (outside_max == 0) continue;  // no outside flow here
    if (unfair_boundary(
            {link.capacity, link.load, residual_[local], inside_load, inside_max, inside_old_max, outside_max})) {
      expand_from(link_id, through_saturated);
      grew = true;
    }
  }
  return grew;
}

void FlowModel::set_rate(std::uint32_t id, double rate) {
  const double old_rate = rate_of_[id].current;
  CTWIN_ASSERT(rate > 0, "every flow gets a positive max-min share");
  if (rate == old_rate) return;  // its drain time stands
  Flow& flow = flows_[id];
  settle(flow, old_rate);
  for_each_binding_hop(flow, [&](fabric::LinkId link) { links_[link].load += rate - old_rate; });
  rate_of_[id].current = rate;
  const double ps = std::ceil(flow.remaining * 1e12 / rate);
  drain_queue_.set(id, simulator_.now() + SimTime::from_ps(static_cast<std::int64_t>(ps)));
}

FlowModel::AloneOutcome FlowModel::solve_alone(std::uint32_t id) {
  // The same steps as the general path below takes for a component of one flow, in the same
  // double arithmetic, so the same rate to the bit: extend_problem() leaves the flow
  // capacity - load + its current rate on each binding link; the solver gives it the least of
  // those (floored at 0) and its cap; grow_at_unfair_boundary() checks each of those links
  // with this flow inside and every other flow outside, and grows the component at each link
  // that fails, in path order. So where a check fails, this has taken the general path's
  // first round, and the general path goes on from its second.
  const Flow& flow = flows_[id];
  const double current = rate_of_[id].current;
  double rate = flow.cap;
  bool repeated = false;  // a link twice on the path is one constraint with two shares: the solver's
  for_each_binding_hop(flow, [&](fabric::LinkId link_id) {
    LinkState& link = links_[link_id];
    repeated = repeated || link.local == 0;
    link.local = 0;
    rate = std::min(rate, std::max(0.0, link.capacity - link.load + current));
  });
  for_each_binding_hop(flow, [&](fabric::LinkId link_id) { links_[link_id].local = -1; });
  if (repeated || !(rate > 0)) return AloneOutcome::kNotTried;
  ++solves_;
  ++solved_flows_;
  bool fair = true;
  for_each_binding_hop(flow, [&](fabric::LinkId link_id) {
    const LinkState& link = links_[link_id];
    if (link.in_set) return;
    double outside_max = 0;
    for (const FlowOnLink& entry : link.flows) {
      if (entry.flow != id) outside_max = std::max(outside_max, rate_of_[entry.flow].current);
    }
    if (outside_max == 0) return;
    const double residual = link.capacity - link.load + current;
    if (unfair_boundary({link.capacity, link.load, residual, rate, rate, current, outside_max})) {
      expand_from(link_id, false);
      fair = false;
    }
  });
  if (!fair) return AloneOutcome::kGrown;
  set_rate(id, rate);
  return AloneOutcome::kSettled;
}

void FlowModel::solve() {
  collect_component();
  new_flows_.clear();
  seed_links_.clear();
  // Most solves cover one flow (a start on links with room, or a drain freeing one flow's
  // link); those mostly settle in one round, and solve_alone() takes that round without
  // building a problem.
  const AloneOutcome alone = component_flows_.size() == 1 && options_.incremental ? solve_alone(component_flows_[0])
                                                                                    : AloneOutcome::kNotTried;
  if (alone != AloneOutcome::kSettled && !component_flows_.empty()) {
    clear_problem();
    for (int round = alone == AloneOutcome::kGrown ? 2 : 1;; ++round) {
      ++solves_;
      solved_flows_ += component_flows_.size();
      const std::size_t first_new = offsets_.size() - 1;
      extend_problem();
      rates_.resize(component_flows_.size());
      // Only the parts of the problem that this round's newcomers touch are solved again;
      // the rest saw no change and keep last round's rates (max_min_solver.hpp). Full
      // re-solves, the tests' reference, solve the whole problem at once.
      if (options_.incremental) {
        solver_.solve_growing(offsets_, local_links_, residual_, caps_, rates_, first_new);
      } else {
        solver_.solve(offsets_, local_links_, residual_, caps_, rates_);
      }
      for (std::size_t i = 0; i < component_flows_.size(); ++i) rate_of_[component_flows_[i]].proposed = rates_[i];
      // Most changes settle within a round or two of local growth. One that keeps spreading
      // (a fabric saturated end to end) takes in everything reachable through full links at
      // once, so the rounds stay few instead of one per ring of links.
      if (!grow_at_unfair_boundary(round >= kLocalRounds)) break;
    }
    for (std::size_t i = 0; i < component_flows_.size(); ++i) set_rate(component_flows_[i], rates_[i]);
  }
  clear_problem();
  for (std::uint32_t id : component_flows_) in_flow_set_[id] = 0;
  for (fabric::LinkId link : component_links_) links_[link].in_set = false;
  component_flows_.clear();
  component_links_.clear();
  change_floor_ = kNoFloor;
  schedule_next_drain();
}

void FlowModel::prefetch_next_drain() {
  const std::uint32_t id = drain_queue_.top();
  const Flow& flow = flows_[id];
  if (id != prefetched_flow_) {
    prefetched_flow_ = id;
    prefetched_links_ = false;
    __builtin_prefetch(&flow);
    __builtin_prefetch(&flow.remaining, 1);
    __builtin_prefetch(&flow.inline_positions, 1);
  } else if (!prefetched_links_) {
    prefetched_links_ = true;
    for (fabric::LinkId link : flow.path()) __builtin_prefetch(&links_[link], 1);
  }
}

void FlowModel::schedule_next_drain() {
  if (drain_queue_.empty()) {
    if (drain_event_) simulator_.cancel(*drain_event_);
    drain_event_.reset();
    return;
  }
  prefetch_next_drain();
  const SimTime at = drain_queue_.top_time();
  if (drain_event_ && drain_event_at_ == at) return;
  if (drain_event_) simulator_.cancel(*drain_event_);
  drain_event_at_ = at;
  drain_event_ = simulator_.schedule_at(at, [this] {
    drain_event_.reset();
    drain();
  });
}

void FlowModel::drain() {
  const SimTime now = simulator_.now();
  while (!drain_queue_.empty() && drain_queue_.top_time() <= now) {
    const std::uint32_t id = drain_queue_.top();
    drain_queue_.pop();
    Flow& flow = flows_[id];
    // detach() writes every link of the path: load them now, so settling and delivering the
    // flow overlap their misses (lines prefetch_next_drain() already brought in cost nothing).
    for (fabric::LinkId link : flow.path()) __builtin_prefetch(&links_[link], 1);
    settle(flow, rate_of_[id].current);
    // Rates integrated over time must have moved the whole flow; what is left is the
    // rounding of its drain time up to a whole picosecond.
    CTWIN_ASSERT(flow.remaining <= 1e-6 * static_cast<double>(flow.size.count()) + 1.0,
                 "a draining flow has moved all its bytes");
    flow.remaining = 0;
    deliver(flow);
    detach(id);
  }
  solve();
}

}  // namespace ctwin::network
