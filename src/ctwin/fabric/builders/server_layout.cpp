#include "ctwin/fabric/builders/server_layout.hpp"

#include <algorithm>
#include <map>
#include <string>
#include <utility>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/dijkstra_shortest_paths.hpp>

#include "ctwin/core/error.hpp"

namespace ctwin::fabric {

ServerLayout::ServerLayout(const ServerSpec& spec, const std::string& source) : gpus_(spec.gpus), nics_(spec.nics.count) {
  CTWIN_ASSERT(gpus_ % nics_ == 0, "the spec loader checks that NICs divide GPUs");
  // Local vertex order: GPUs, NVSwitch, PCIe switches, CPUs, NICs.
  vertex_kinds_.assign(static_cast<std::size_t>(gpus_), VertexKind::kGpu);
  const auto nvswitch = static_cast<VertexId>(vertex_kinds_.size());
  if (spec.nvlink) vertex_kinds_.push_back(VertexKind::kNvSwitch);
  const auto pcie_base = static_cast<VertexId>(vertex_kinds_.size());
  vertex_kinds_.insert(vertex_kinds_.end(), static_cast<std::size_t>(spec.pcie_switches), VertexKind::kPcieSwitch);
  const auto cpu_base = static_cast<VertexId>(vertex_kinds_.size());
  vertex_kinds_.insert(vertex_kinds_.end(), static_cast<std::size_t>(spec.cpus), VertexKind::kCpu);
  nic_base_ = static_cast<int>(vertex_kinds_.size());
  vertex_kinds_.insert(vertex_kinds_.end(), static_cast<std::size_t>(nics_), VertexKind::kNic);

  // GPUs and NICs hang off PCIe switches when there are some, else off CPU root ports.
  const int hosts = spec.pcie_switches > 0 ? spec.pcie_switches : spec.cpus;
  const VertexId host_base = spec.pcie_switches > 0 ? pcie_base : cpu_base;
  for (int g = 0; g < gpus_; ++g) {
    if (spec.nvlink) add_cable(gpu_vertex(g), nvswitch, spec.nvlink->link, LinkKind::kNvlink);
    add_cable(gpu_vertex(g), host_base + static_cast<VertexId>(g * hosts / gpus_), spec.pcie, LinkKind::kPcie);
  }
  for (int n = 0; n < nics_; ++n) {
    add_cable(nic_vertex(n), host_base + static_cast<VertexId>(n * hosts / nics_), spec.pcie, LinkKind::kPcie);
  }
  for (int s = 0; s < spec.pcie_switches; ++s) {
    add_cable(pcie_base + static_cast<VertexId>(s), cpu_base + static_cast<VertexId>(s * spec.cpus / spec.pcie_switches),
              spec.pcie, LinkKind::kPcie);
  }
  if (spec.cpu_link) {
    for (int a = 0; a < spec.cpus; ++a) {
      for (int b = a + 1; b < spec.cpus; ++b) {
        add_cable(cpu_base + static_cast<VertexId>(a), cpu_base + static_cast<VertexId>(b), *spec.cpu_link,
                  LinkKind::kCpuLink);
      }
    }
  }
  compute_routes(source);
}

void ServerLayout::add_cable(VertexId a, VertexId b, LinkSpec spec, LinkKind kind) {
  links_.push_back({a, b, spec.bandwidth, spec.latency, kind, spec.efficiency});
  links_.push_back({b, a, spec.bandwidth, spec.latency, kind, spec.efficiency});
}

void ServerLayout::compute_routes(const std::string& source) {
  using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS, boost::no_property,
                                      boost::property<boost::edge_weight_t, double, boost::property<boost::edge_index_t, LinkId>>>;
  Graph graph(vertex_kinds_.size());
  // Cost of a hop: picoseconds per byte, so a path over NVLink beats one over PCIe even when
  // both have two hops; the constant keeps shorter paths ahead among equals.
  const auto cost = [&](LinkId id) { return 1e12 / links_[id].bandwidth.bytes_per_second() + 1e-3; };
  for (LinkId id = 0; id < links_.size(); ++id) boost::add_edge(links_[id].from, links_[id].to, {cost(id), id}, graph);
  // The link a route takes from one vertex to the next: among parallel links the cheapest, then
  // the lowest id, for determinism. Looked up once per pair of vertices rather than by scanning
  // the NVSwitch's out-edges (one per GPU) at every hop of every route.
  std::map<std::pair<VertexId, VertexId>, LinkId> best_link;
  for (LinkId id = 0; id < links_.size(); ++id) {
    const auto [it, first] = best_link.try_emplace({links_[id].from, links_[id].to}, id);
    if (!first && cost(id) < cost(it->second)) it->second = id;  // ties keep the lower id
  }
  const int endpoints = gpus_ + nics_;
  auto endpoint_vertex = [&](int e) { return e < gpus_ ? gpu_vertex(e) : nic_vertex(e - gpus_); };
  route_offsets_.assign(static_cast<std::size_t>(endpoints) * endpoints + 1, 0);
  std::vector<Graph::vertex_descriptor> predecessor(boost::num_vertices(graph));
  std::vector<double> distance(boost::num_vertices(graph));
  std::vector<LinkId> reversed;
  for (int from = 0; from < endpoints; ++from) {
    const VertexId origin = endpoint_vertex(from);
    boost::dijkstra_shortest_paths(
        graph, origin,
        boost::predecessor_map(predecessor.data()).distance_map(distance.data()));
    for (int to = 0; to < endpoints; ++to) {
      route_offsets_[static_cast<std::size_t>(from) * endpoints + to] = static_cast<std::uint32_t>(route_links_.size());
      VertexId at = endpoint_vertex(to);
      if (from != to && predecessor[at] == at) {
        throw InputError(source, "/server", "no path inside the server from endpoint " + std::to_string(from) + " to " +
                                            std::to_string(to) + " (add cpu_link or nvlink)");
      }
      reversed.clear();
      while (at != origin) {
        const VertexId previous = static_cast<VertexId>(predecessor[at]);
        const auto best = best_link.find({previous, at});
        CTWIN_ASSERT(best != best_link.end(), "a predecessor is joined by an edge");
        reversed.push_back(best->second);
        at = previous;
      }
      route_links_.insert(route_links_.end(), reversed.rbegin(), reversed.rend());
    }
  }
  route_offsets_.back() = static_cast<std::uint32_t>(route_links_.size());
}

bool ServerLayout::routes_alike(const ServerLayout& other) const {
  const auto ends = [](const Link& a, const Link& b) { return a.from == b.from && a.to == b.to && a.kind == b.kind; };
  return gpus_ == other.gpus_ && nics_ == other.nics_ && vertex_kinds_ == other.vertex_kinds_ &&
         std::equal(links_.begin(), links_.end(), other.links_.begin(), other.links_.end(), ends) &&
         route_offsets_ == other.route_offsets_ && route_links_ == other.route_links_;
}

std::span<const LinkId> ServerLayout::route(int from_endpoint, int to_endpoint) const {
  const std::size_t endpoints = static_cast<std::size_t>(gpus_ + nics_);
  const std::size_t index = static_cast<std::size_t>(from_endpoint) * endpoints + static_cast<std::size_t>(to_endpoint);
  return {route_links_.data() + route_offsets_[index], route_links_.data() + route_offsets_[index + 1]};
}

}  // namespace ctwin::fabric
