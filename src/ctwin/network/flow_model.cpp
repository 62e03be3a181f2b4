#include "ctwin/network/flow_model.hpp"

#include <algorithm>
#include <cmath>

#include "ctwin/core/error.hpp"

namespace ctwin::network {
namespace {

// Relative slack under which a link counts as full; far above rounding, far below any
// difference that matters to a completion time.
constexpr double kSaturation = 1e-9;

bool later(const auto& a, const auto& b) {
  return a.at != b.at ? a.at > b.at : a.flow > b.flow;
}

}  // namespace

FlowModel::FlowModel(const fabric::Fabric& fabric, engine::Simulator& simulator, FlowModelOptions options)
    : NetworkModel(fabric, simulator),
      options_(options),
      solver_(fabric.links().size()),
      load_(fabric.links().size(), 0.0),
      demand_(fabric.links().size(), 0.0),
      residual_(fabric.links().size(), 0.0),
      link_bytes_(fabric.links().size(), 0.0),
      flows_on_link_(fabric.links().size()),
      in_link_set_(fabric.links().size(), 0) {
  capacity_.reserve(fabric.links().size());
  for (const auto& link : fabric.links()) capacity_.push_back(link.bandwidth.bytes_per_second());
}

bool FlowModel::binding(fabric::LinkId link) const { return demand_[link] > capacity_[link] * (1 + kSaturation); }

bool FlowModel::saturated(fabric::LinkId link) const {
  return binding(link) && load_[link] >= capacity_[link] * (1 - kSaturation);
}

void FlowModel::start_transfer(const TransferRequest& request, Completion done) {
  CTWIN_ASSERT(request.size >= Bytes(0), "transfer sizes are not negative");
  ++stats_.started;
  stats_.bytes_started += request.size;
  std::uint32_t id = 0;
  if (free_ids_.empty()) {
    id = static_cast<std::uint32_t>(flows_.size());
    flows_.emplace_back();
    in_flow_set_.push_back(0);
  } else {
    id = free_ids_.back();
    free_ids_.pop_back();
  }
  Flow& flow = flows_[id];
  flow.path.clear();
  fabric::append_route(fabric_, request.src, request.dst, request.route, flow.path);
  const PathProperties properties = path_properties(fabric_, flow.path);
  flow.latency = properties.latency;
  flow.cap = properties.bottleneck.bytes_per_second();
  flow.size = request.size;
  flow.done = std::move(done);
  if (flow.path.empty() || request.size == Bytes(0)) {
    deliver(flow);
    free_ids_.push_back(id);
    return;
  }
  flow.remaining = static_cast<double>(request.size.count());
  flow.rate = 0;
  flow.settled_at = simulator_.now();
  flow.active = true;
  flow.position_in_link.resize(flow.path.size());
  for (std::size_t i = 0; i < flow.path.size(); ++i) {
    auto& on_link = flows_on_link_[flow.path[i]];
    flow.position_in_link[i] = static_cast<std::uint32_t>(on_link.size());
    on_link.push_back(id);
    demand_[flow.path[i]] += flow.cap;
  }
  ++active_;
  new_flows_.push_back(id);
  request_solve();
}

void FlowModel::deliver(Flow& flow) {
  simulator_.schedule_in(flow.latency, [this, size = flow.size, done = std::move(flow.done)] {
    ++stats_.completed;
    stats_.bytes_delivered += size;
    done();
  });
}

void FlowModel::settle(Flow& flow) {
  const SimTime now = simulator_.now();
  if (now == flow.settled_at) return;
  const double moved = std::min(flow.remaining, flow.rate * (now - flow.settled_at).seconds());
  flow.remaining -= moved;
  for (fabric::LinkId id : flow.path) link_bytes_[id] += moved;
  flow.settled_at = now;
}

void FlowModel::detach(std::uint32_t id) {
  Flow& flow = flows_[id];
  for (std::size_t i = 0; i < flow.path.size(); ++i) {
    const fabric::LinkId link = flow.path[i];
    // Its capacity frees up: flows limited there may speed up.
    if (saturated(link)) seed_links_.push_back(link);
    load_[link] -= flow.rate;
    demand_[link] -= flow.cap;
    auto& on_link = flows_on_link_[link];
    const std::uint32_t position = flow.position_in_link[i];
    const std::uint32_t moved = on_link.back();
    on_link[position] = moved;
    on_link.pop_back();
    if (moved != id) {
      Flow& other = flows_[moved];
      for (std::size_t j = 0; j < other.path.size(); ++j) {
        if (other.path[j] == link) {
          other.position_in_link[j] = position;
          break;
        }
      }
    }
    if (on_link.empty()) load_[link] = demand_[link] = 0;  // drops accumulated rounding
  }
  flow.active = false;
  ++flow.version;
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

void FlowModel::expand_from(fabric::LinkId link) {
  if (in_link_set_[link]) return;
  in_link_set_[link] = 1;
  component_links_.push_back(link);
  frontier_.push_back(link);
  while (!frontier_.empty()) {
    const fabric::LinkId at = frontier_.back();
    frontier_.pop_back();
    for (std::uint32_t id : flows_on_link_[at]) {
      if (in_flow_set_[id]) continue;
      in_flow_set_[id] = 1;
      component_flows_.push_back(id);
      for (fabric::LinkId next : flows_[id].path) {
        if (!in_link_set_[next] && saturated(next)) {
          in_link_set_[next] = 1;
          component_links_.push_back(next);
          frontier_.push_back(next);
        }
      }
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
    if (!flows_[id].active || in_flow_set_[id]) continue;
    in_flow_set_[id] = 1;
    component_flows_.push_back(id);
    for (fabric::LinkId link : flows_[id].path) {
      if (saturated(link)) expand_from(link);
    }
  }
  for (fabric::LinkId link : seed_links_) expand_from(link);
}

bool FlowModel::grow_at_unfair_boundary() {
  if (!options_.incremental) return false;
  // Links of the set's flows that are not in the set: full now, with an outside flow faster
  // than every inside flow there, means the inside flows took more than their fair share.
  bool grew = false;
  boundary_links_.clear();
  for (std::uint32_t id : component_flows_) {
    for (fabric::LinkId link : flows_[id].path) {
      if (!in_link_set_[link] && binding(link)) boundary_links_.push_back(link);
    }
  }
  for (fabric::LinkId link : boundary_links_) {
    if (in_link_set_[link]) continue;
    double inside_load = 0;
    double inside_max = 0;
    double outside_max = 0;
    for (std::uint32_t id : flows_on_link_[link]) {
      if (in_flow_set_[id]) {
        const double rate = flows_[id].solved_rate;
        inside_load += rate;
        inside_max = std::max(inside_max, rate);
      } else {
        outside_max = std::max(outside_max, flows_[id].rate);
      }
    }
    const bool full = inside_load >= residual_[link] * (1 - kSaturation);
    if (full && outside_max > inside_max * (1 + kSaturation)) {
      expand_from(link);
      grew = true;
    }
  }
  return grew;
}

void FlowModel::solve() {
  collect_component();
  new_flows_.clear();
  seed_links_.clear();
  if (!component_flows_.empty()) {
    while (true) {
      ++solves_;
      solved_flows_ += component_flows_.size();
      // Capacity left to the set on each of its flows' links: outside flows keep their rates.
      offsets_.assign(1, 0);
      links_.clear();
      caps_.clear();
      for (std::uint32_t id : component_flows_) {
        const Flow& flow = flows_[id];
        for (fabric::LinkId link : flow.path) {
          if (!binding(link)) continue;
          double outside = 0;
          for (std::uint32_t other : flows_on_link_[link]) {
            if (!in_flow_set_[other]) outside += flows_[other].rate;
          }
          residual_[link] = capacity_[link] - outside;
          links_.push_back(link);
        }
        offsets_.push_back(static_cast<std::uint32_t>(links_.size()));
        caps_.push_back(flow.cap);
      }
      rates_.resize(component_flows_.size());
      solver_.solve(offsets_, links_, residual_, caps_, rates_);
      for (std::size_t i = 0; i < component_flows_.size(); ++i) flows_[component_flows_[i]].solved_rate = rates_[i];
      const bool grew = grow_at_unfair_boundary();
      if (!grew) break;
    }
    const SimTime now = simulator_.now();
    for (std::size_t i = 0; i < component_flows_.size(); ++i) {
      const std::uint32_t id = component_flows_[i];
      Flow& flow = flows_[id];
      const double rate = rates_[i];
      CTWIN_ASSERT(rate > 0, "every flow gets a positive max-min share");
      if (rate == flow.rate) continue;  // its drain time stands
      settle(flow);
      for (fabric::LinkId link : flow.path) load_[link] += rate - flow.rate;
      flow.rate = rate;
      ++flow.version;
      const double ps = std::ceil(flow.remaining * 1e12 / rate);
      drains_.push_back({now + SimTime::from_ps(static_cast<std::int64_t>(ps)), id, flow.version});
      std::push_heap(drains_.begin(), drains_.end(), later<Drain, Drain>);
    }
  }
  for (std::uint32_t id : component_flows_) in_flow_set_[id] = 0;
  for (fabric::LinkId link : component_links_) in_link_set_[link] = 0;
  component_flows_.clear();
  component_links_.clear();
  schedule_next_drain();
}

void FlowModel::schedule_next_drain() {
  while (!drains_.empty()) {
    const Drain& top = drains_.front();
    if (flows_[top.flow].active && flows_[top.flow].version == top.version) break;
    std::pop_heap(drains_.begin(), drains_.end(), later<Drain, Drain>);
    drains_.pop_back();
  }
  if (drains_.empty()) {
    if (drain_event_) simulator_.cancel(*drain_event_);
    drain_event_.reset();
    return;
  }
  const SimTime at = drains_.front().at;
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
  while (!drains_.empty() && drains_.front().at <= now) {
    const Drain top = drains_.front();
    std::pop_heap(drains_.begin(), drains_.end(), later<Drain, Drain>);
    drains_.pop_back();
    Flow& flow = flows_[top.flow];
    if (!flow.active || flow.version != top.version) continue;
    settle(flow);
    // Bytes lost to rounding the drain time up to a picosecond still count as carried.
    for (fabric::LinkId id : flow.path) link_bytes_[id] += flow.remaining;
    flow.remaining = 0;
    deliver(flow);
    detach(top.flow);
  }
  solve();
}

}  // namespace ctwin::network
