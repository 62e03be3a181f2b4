#include "ctwin/fabric/fabric.hpp"

#include <algorithm>
#include <cstdio>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/breadth_first_search.hpp>

#include "ctwin/core/error.hpp"

namespace ctwin::fabric {

struct Fabric::BoostGraph {
  using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS, boost::no_property,
                                      boost::property<boost::edge_index_t, LinkId>>;
  Graph graph;
};

namespace {

// Links one build may hold (see the constructor).
constexpr std::size_t kMaxLinks = std::size_t{1} << 25;

int checked_node_count(const ClusterSpec& spec, int gpus) {
  if (gpus <= 0) throw InputError("--gpus", "", "must be a positive number of GPUs, got " + std::to_string(gpus));
  // In 64 bits: --gpus near INT_MAX must reach the capacity check, not overflow.
  const long long nodes = (static_cast<long long>(gpus) + spec.server.gpus - 1) / spec.server.gpus;
  if (nodes > (1LL << 24)) {
    throw InputError("--gpus", "", std::to_string(gpus) + " GPUs is beyond any build ctwin models (at most " +
                                       std::to_string((1LL << 24) * spec.server.gpus) + " with " + spec.file + ")");
  }
  return static_cast<int>(nodes);
}

}  // namespace

class Fabric::Wiring final : public SwitchWiring {
 public:
  explicit Wiring(Fabric& fabric) : fabric_(fabric) {}
  void cable(int switch_a, int switch_b, const LinkSpec& spec, LinkKind kind) override {
    fabric_.add_cable(fabric_.switch_vertex(switch_a), fabric_.switch_vertex(switch_b), spec, kind);
  }

 private:
  Fabric& fabric_;
};

Fabric::Fabric(ClusterSpec spec, int gpus)
    : spec_(std::move(spec)),
      gpus_(gpus),
      server_(spec_.server, spec_.file),
      topology_(plan_topology(spec_, checked_node_count(spec_, gpus))),
      rails_(spec_.server.nics.count) {
  const int nodes = topology_->nodes();
  if (spec_.build_group_servers) assign_group_servers(nodes);
  links_per_node_ = static_cast<LinkId>(server_.links().size());
  const std::size_t total_links =
      static_cast<std::size_t>(links_per_node_) * static_cast<std::size_t>(nodes) +
      2 * (static_cast<std::size_t>(nodes) * static_cast<std::size_t>(rails_) +
           static_cast<std::size_t>(topology_->switch_cables()));
  // A build costs about 100 bytes per link in all (the list, the Boost graph, the routes and
  // summaries over them: 1.4 GB for 1,048,576 H100 GPUs, 13.6M links, measured). A 16.7M-GPU
  // build reached 6.4 GB, on its way to 22, before printing a word (issue 36); past 2^25 links
  // (about 3.4 GB and half a minute, some 2.5M H100 GPUs, ten times the largest cluster built)
  // it is refused at once.
  if (total_links > kMaxLinks) {
    char text[240];
    std::snprintf(text, sizeof text,
                  "%d GPUs of %s are %.3g links, about %.0f GB in memory: more than the %.3g links (about %.0f GB) "
                  "ctwin builds",
                  gpus, spec_.file.c_str(), static_cast<double>(total_links), static_cast<double>(total_links) * 1e-7,
                  static_cast<double>(kMaxLinks), static_cast<double>(kMaxLinks) * 1e-7);
    throw InputError("--gpus", "", text);
  }
  CTWIN_ASSERT(total_links < (std::size_t{1} << 32), "link ids are 32-bit");
  const auto per_node_vertices = static_cast<std::size_t>(server_.vertex_count());
  const std::vector<TierSize> tiers = topology_->tiers();
  std::size_t switch_count = 0;
  for (const TierSize& tier : tiers) switch_count += static_cast<std::size_t>(tier.switches);
  vertex_kinds_.reserve(per_node_vertices * static_cast<std::size_t>(nodes) + switch_count);
  for (int n = 0; n < nodes; ++n) {
    vertex_kinds_.insert(vertex_kinds_.end(), server_.vertex_kinds().begin(), server_.vertex_kinds().end());
  }
  switch_base_ = static_cast<VertexId>(vertex_kinds_.size());
  for (const TierSize& tier : tiers) {
    vertex_kinds_.insert(vertex_kinds_.end(), static_cast<std::size_t>(tier.switches), tier.kind);
  }

  links_.reserve(total_links);
  for (int n = 0; n < nodes; ++n) {
    const auto offset = static_cast<VertexId>(static_cast<std::size_t>(n) * per_node_vertices);
    for (Link link : node_layout(n).links()) {
      link.from += offset;
      link.to += offset;
      links_.push_back(link);
    }
  }

  access_base_ = static_cast<LinkId>(links_.size());
  nic_switch_.resize(static_cast<std::size_t>(nodes) * static_cast<std::size_t>(rails_));
  for (int n = 0; n < nodes; ++n) {
    const auto offset = static_cast<VertexId>(static_cast<std::size_t>(n) * per_node_vertices);
    const NicSpec& nic = node_nics(n);
    for (int k = 0; k < rails_; ++k) {
      const int sw = topology_->access_switch(n, k);
      nic_switch_[static_cast<std::size_t>(n * rails_ + k)] = sw;
      add_cable(offset + server_.nic_vertex(k), switch_vertex(sw), nic.link, LinkKind::kAccess);
    }
  }

  switch_link_base_ = static_cast<LinkId>(links_.size());
  Wiring wiring(*this);
  topology_->wire(wiring);
  CTWIN_ASSERT(links_.size() == total_links, "link layout matches its count");

  graph_ = std::make_unique<BoostGraph>();
  graph_->graph = BoostGraph::Graph(vertex_kinds_.size());
  for (LinkId id = 0; id < links_.size(); ++id) boost::add_edge(links_[id].from, links_[id].to, id, graph_->graph);
}

void Fabric::assign_group_servers(int nodes) {
  int start = 0;
  for (const NodeGroupSpec& group : spec_.node_groups) {
    const int end = static_cast<int>(std::min<std::int64_t>(nodes, start + group.nodes));
    if (group.server && start < end) {
      ServerLayout layout(*group.server, spec_.file);
      if (!layout.routes_alike(server_)) {
        throw InputError(spec_.file, "/node_groups",
                         "group '" + group.name + "''s server is built unlike the file's (its NICs, NVLink, PCIe "
                         "switches, CPUs or socket link differ): a built fabric (network flow) takes a group server "
                         "with the file's parts, at other rates");
      }
      if (node_server_.empty()) node_server_.assign(static_cast<std::size_t>(nodes), 0);
      group_servers_.push_back(std::move(layout));
      group_nics_.push_back(group.server->nics);
      std::fill(node_server_.begin() + start, node_server_.begin() + end,
                static_cast<std::uint16_t>(group_servers_.size()));
    }
    start = end;
  }
}

const ServerLayout& Fabric::node_layout(int node) const {
  const std::uint16_t k = node_server_.empty() ? 0 : node_server_[static_cast<std::size_t>(node)];
  return k == 0 ? server_ : group_servers_[k - 1U];
}

const NicSpec& Fabric::node_nics(int node) const {
  const std::uint16_t k = node_server_.empty() ? 0 : node_server_[static_cast<std::size_t>(node)];
  return k == 0 ? spec_.server.nics : group_nics_[k - 1U];
}

Fabric::~Fabric() = default;
Fabric::Fabric(Fabric&&) noexcept = default;
Fabric& Fabric::operator=(Fabric&&) noexcept = default;

void Fabric::add_cable(VertexId a, VertexId b, const LinkSpec& spec, LinkKind kind) {
  links_.push_back({a, b, spec.bandwidth, spec.latency, kind, spec.efficiency});
  links_.push_back({b, a, spec.bandwidth, spec.latency, kind, spec.efficiency});
}

VertexId Fabric::gpu_vertex(GpuId gpu) const {
  CTWIN_ASSERT(gpu >= 0 && gpu < gpus_, "GPU id within the build");
  return static_cast<VertexId>(static_cast<std::size_t>(node_of(gpu)) * static_cast<std::size_t>(server_.vertex_count())) +
         server_.gpu_vertex(local_index(gpu));
}

std::vector<int> Fabric::hop_distances(VertexId from) const {
  std::vector<int> distance(vertex_kinds_.size(), -1);
  distance[from] = 0;
  // Tree edges reach each vertex once, at its fewest-hops distance; unreached ones keep -1.
  boost::breadth_first_search(
      graph_->graph, from,
      boost::visitor(boost::make_bfs_visitor(boost::record_distances(distance.data(), boost::on_tree_edge()))));
  return distance;
}

}  // namespace ctwin::fabric
