#include "ctwin/network/simgrid_model.hpp"

// Each directed fabric link becomes a SimGrid link of the same bandwidth; each GPU a host; each
// GPU pair a route along ctwin's own path for it (flow label 0). SimGrid is configured to its
// plain max-min model (CM02, no TCP window bound, no cross-traffic, unit bandwidth and latency
// factors) so that both solvers answer the same question. Links get zero latency in SimGrid:
// CM02 weighs each flow's share by its route latency (RTT unfairness, as TCP), which is not the
// question; the path latency is added on delivery instead, as the flow model does.
//
// Clocks: SimGrid owns time while it runs. One driver actor alternates between ctwin's events
// (run when SimGrid's clock reaches them) and waiting on SimGrid communications with a timeout
// set to ctwin's next event, so neither side ever runs past the other.

#include <atomic>
#include <string>

#include <simgrid/s4u.hpp>

#include "ctwin/core/error.hpp"

namespace ctwin::network {
namespace sg4 = simgrid::s4u;

namespace {

// SimGrid's engine is a process-wide singleton that cannot be restarted.
std::atomic<bool> engine_taken{false};

constexpr std::size_t kMaxGpus = 512;

}  // namespace

struct SimGridModel::State {
  std::unique_ptr<sg4::Engine> engine;
  std::vector<sg4::Host*> hosts;
  std::vector<sg4::CommPtr> comms;
  std::vector<Completion> callbacks;
  std::vector<SimTime> latencies;
  bool running = false;
};

SimGridModel::SimGridModel(const fabric::Fabric& fabric, engine::Simulator& simulator)
    : NetworkModel(fabric, simulator), state_(std::make_unique<State>()) {
  if (static_cast<std::size_t>(fabric.gpus()) > kMaxGpus) {
    throw InputError("--network", "", "simgrid declares a route per GPU pair and is limited to " +
                                          std::to_string(kMaxGpus) + " GPUs (use flow for larger builds)");
  }
  if (engine_taken.exchange(true)) {
    throw InputError("--network", "", "simgrid runs one simulation per process");
  }
  std::vector<std::string> args{"ctwin",
                                "--log=root.thres:critical",
                                "--cfg=network/model:CM02",
                                "--cfg=network/TCP-gamma:0",
                                "--cfg=network/crosstraffic:0",
                                "--cfg=network/latency-factor:1.0",
                                "--cfg=network/bandwidth-factor:1.0"};
  std::vector<char*> argv;
  for (auto& arg : args) argv.push_back(arg.data());
  int argc = static_cast<int>(argv.size());
  state_->engine = std::make_unique<sg4::Engine>(&argc, argv.data());

  auto* zone = sg4::create_full_zone("ctwin");
  const auto gpus = static_cast<std::size_t>(fabric.gpus());
  for (std::size_t g = 0; g < gpus; ++g) state_->hosts.push_back(zone->create_host("gpu" + std::to_string(g), 1e9));
  std::vector<sg4::Link*> links(fabric.links().size(), nullptr);
  auto sg_link = [&](fabric::LinkId id) {
    if (links[id] == nullptr) {
      const fabric::Link& link = fabric.link(id);
      links[id] = zone->create_link("l" + std::to_string(id), link.achieved().bytes_per_second())->seal();
    }
    return links[id];
  };
  std::vector<fabric::LinkId> path;
  std::vector<sg4::LinkInRoute> route;
  for (std::size_t a = 0; a < gpus; ++a) {
    for (std::size_t b = 0; b < gpus; ++b) {
      if (a == b) continue;
      path.clear();
      fabric::append_route(fabric, static_cast<GpuId>(a), static_cast<GpuId>(b), {}, path);
      route.clear();
      for (fabric::LinkId id : path) route.emplace_back(sg_link(id));
      zone->add_route(state_->hosts[a]->get_netpoint(), state_->hosts[b]->get_netpoint(), nullptr, nullptr, route,
                      false);
    }
  }
  zone->seal();
}

SimGridModel::~SimGridModel() = default;

void SimGridModel::start_transfer(const TransferRequest& request, Completion done) {
  CTWIN_ASSERT(request.size >= Bytes(0), "transfer sizes are not negative");
  if (request.route.flow_label != 0 || request.route.pxn || request.route.leg != fabric::SwitchLeg::kWhole) {
    throw InputError("--network", "", "simgrid routes each GPU pair on one path: flow labels, PXN and NVLS switch legs are not supported");
  }
  if (!state_->running && request.src != request.dst) {
    // Comms start from the driver actor only; defer until run() begins.
    simulator_.schedule_in(SimTime(), [this, request, done = std::move(done)]() mutable {
      start_transfer(request, std::move(done));
    });
    return;
  }
  ++stats_.started;
  stats_.bytes_started += request.size;
  auto finish = [this, size = request.size, done = std::move(done)] {
    ++stats_.completed;
    stats_.bytes_delivered += size;
    done();
  };
  if (request.src == request.dst) {
    simulator_.schedule_in(SimTime(), std::move(finish));
    return;
  }
  state_->comms.push_back(sg4::Comm::sendto_async(state_->hosts[static_cast<std::size_t>(request.src)],
                                                  state_->hosts[static_cast<std::size_t>(request.dst)],
                                                  static_cast<std::uint64_t>(request.size.count())));
  state_->callbacks.push_back(std::move(finish));
  state_->latencies.push_back(
      path_properties(fabric_, fabric::route(fabric_, request.src, request.dst, request.route)).latency);
}

void SimGridModel::run() {
  State& state = *state_;
  sg4::Actor::create("ctwin-driver", state.hosts.front(), [this, &state] {
    state.running = true;
    while (true) {
      const auto next = simulator_.next_event_time();
      if (state.comms.empty()) {
        if (!next) break;
        sg4::this_actor::sleep_until(next->seconds());
        simulator_.run_until(*next);
        continue;
      }
      const double clock = sg4::Engine::get_clock();
      if (next && next->seconds() <= clock) {
        simulator_.run_until(std::max(*next, simulator_.now()));
        continue;
      }
      const double timeout = next ? next->seconds() - clock : -1.0;
      const ssize_t index = sg4::Comm::wait_any_for(state.comms, timeout);
      if (index < 0) {
        simulator_.run_until(*next);
        continue;
      }
      const auto done_at = std::max(simulator_.now(), SimTime::from_seconds(sg4::Engine::get_clock()));
      const auto i = static_cast<std::size_t>(index);
      simulator_.schedule_at(done_at + state.latencies[i], std::move(state.callbacks[i]));
      state.comms.erase(state.comms.begin() + index);
      state.callbacks.erase(state.callbacks.begin() + index);
      state.latencies.erase(state.latencies.begin() + index);
      simulator_.run_until(done_at);
    }
    state.running = false;
  });
  state.engine->run();
}

}  // namespace ctwin::network
