#pragma once
// A built cluster: every GPU, switch, NIC and link of the first N GPUs of a topology, as flat
// arrays (for the network models' hot loops) and as a Boost graph (for graph algorithms).
// Vertex and link ids follow a fixed layout so that routing is arithmetic:
//   vertices: node-major copies of the server layout, then the switches, tier by tier as the
//             Topology lists them;
//   links:    node-major copies of the server's links, then NIC cables (node-major, NIC order),
//             then the Topology's switch cables in its order; each cable is a pair (even id =
//             towards the NIC or the first switch named, odd id = the reverse).
// What the switches are and how routes cross them is the Topology's (fabric/topology.hpp).
// Node groups (ClusterSpec::node_groups) lie on consecutive nodes from node 0, in the spec's
// order; with ClusterSpec::build_group_servers (a job's pool), a group with its own server has
// its nodes' links and NIC cables at that server's rates.
// Its parts and routes must be the file's server's (ServerLayout::routes_alike), so that the
// layout above and every route stay arithmetic; only rates and latencies differ per node.

#include <cstdint>
#include <memory>
#include <vector>

#include "ctwin/fabric/builders/server_layout.hpp"
#include "ctwin/fabric/cluster_spec.hpp"
#include "ctwin/fabric/elements.hpp"
#include "ctwin/fabric/topology.hpp"

namespace ctwin::fabric {

class Fabric {
 public:
  /// Builds the first `gpus` GPUs of `spec`, filling nodes in order (the last node may be partly
  /// used). Throws InputError naming `--gpus` for a count no build can have (not positive, or
  /// beyond any build ctwin models), and the topology file when this cluster cannot hold them or
  /// a node group's own server is not built like the file's (/node_groups).
  Fabric(ClusterSpec spec, int gpus);
  ~Fabric();
  Fabric(Fabric&&) noexcept;
  Fabric& operator=(Fabric&&) noexcept;

  [[nodiscard]] const ClusterSpec& spec() const { return spec_; }
  /// The file's server; every node's parts and routes (its rates may be its group's server's).
  [[nodiscard]] const ServerLayout& server() const { return server_; }
  /// Whether node `node` is built from a node group's own server rather than the file's.
  [[nodiscard]] bool node_has_group_server(int node) const {
    return !node_server_.empty() && node_server_[static_cast<std::size_t>(node)] > 0;
  }
  [[nodiscard]] const Topology& topology() const { return *topology_; }

  [[nodiscard]] int gpus() const { return gpus_; }
  [[nodiscard]] int nodes() const { return topology_->nodes(); }
  [[nodiscard]] int gpus_per_node() const { return server_.gpus(); }
  [[nodiscard]] int node_of(GpuId gpu) const { return gpu / server_.gpus(); }
  [[nodiscard]] int local_index(GpuId gpu) const { return gpu % server_.gpus(); }

  [[nodiscard]] std::size_t vertex_count() const { return vertex_kinds_.size(); }
  [[nodiscard]] VertexKind vertex_kind(VertexId v) const { return vertex_kinds_[v]; }
  [[nodiscard]] const std::vector<Link>& links() const { return links_; }
  [[nodiscard]] const Link& link(LinkId id) const { return links_[id]; }
  /// A degraded build (fabric/degradation.hpp): the one change a built link takes.
  void scale_link_bandwidth(LinkId id, double factor) { links_[id].bandwidth = links_[id].bandwidth * factor; }

  [[nodiscard]] VertexId gpu_vertex(GpuId gpu) const;
  /// Switch `index` in the Topology's numbering.
  [[nodiscard]] VertexId switch_vertex(int index) const { return switch_base_ + static_cast<VertexId>(index); }

  /// A link of the server layout, copied into node `node`.
  [[nodiscard]] LinkId node_link(int node, LinkId local) const {
    return static_cast<LinkId>(node) * links_per_node_ + local;
  }
  /// NIC `nic` of `node` towards its switch (reverse() for switch to NIC).
  [[nodiscard]] LinkId access_link(int node, int nic) const {
    return access_base_ + 2 * static_cast<LinkId>(node * rails_ + nic);
  }
  /// The Topology's n-th switch cable, in the direction it was wired.
  [[nodiscard]] LinkId switch_link(long long n) const { return switch_link_base_ + 2 * static_cast<LinkId>(n); }
  /// Switch cables the build holds.
  [[nodiscard]] long long switch_link_count() const {
    return static_cast<long long>(links_.size() - switch_link_base_) / 2;
  }
  /// The switch (Topology numbering) NIC `nic` of `node` plugs into.
  [[nodiscard]] int switch_of_nic(int node, int nic) const { return nic_switch_[static_cast<std::size_t>(node * rails_ + nic)]; }

  /// Links on the fewest-hops path from `from` to every vertex (breadth-first search on the
  /// Boost graph); -1 where unreachable. For summaries and tests, not for hot loops.
  [[nodiscard]] std::vector<int> hop_distances(VertexId from) const;

 private:
  struct BoostGraph;
  class Wiring;
  void add_cable(VertexId a, VertexId b, const LinkSpec& spec, LinkKind kind);
  void assign_group_servers(int nodes);
  [[nodiscard]] const ServerLayout& node_layout(int node) const;
  [[nodiscard]] const NicSpec& node_nics(int node) const;

  ClusterSpec spec_;
  int gpus_ = 0;
  ServerLayout server_;
  std::vector<ServerLayout> group_servers_;  ///< node groups' own servers, in spec order of first use
  std::vector<NicSpec> group_nics_;          ///< their NICs, alike
  std::vector<std::uint16_t> node_server_;   ///< per node: 0 the file's, k group_servers_[k − 1]; empty: all the file's
  std::unique_ptr<const Topology> topology_;
  int rails_ = 0;
  std::vector<VertexKind> vertex_kinds_;
  std::vector<Link> links_;
  std::vector<int> nic_switch_;
  VertexId switch_base_ = 0;
  LinkId links_per_node_ = 0;
  LinkId access_base_ = 0;
  LinkId switch_link_base_ = 0;
  std::unique_ptr<BoostGraph> graph_;
};

}  // namespace ctwin::fabric
