#pragma once
// A built cluster: every GPU, switch, NIC and link of the first N GPUs of a topology, as flat
// arrays (for the network models' hot loops) and as a Boost graph (for graph algorithms).
// Vertex and link ids follow a fixed layout so that routing is arithmetic:
//   vertices: node-major copies of the server layout, then leaves, spines (pod-major), cores
//             (plane-major);
//   links:    node-major copies of the server's links, then NIC-leaf cables (node-major, NIC
//             order), leaf uplinks (leaf-major), spine uplinks (spine-major); each cable is a
//             pair (even id = towards the NIC or upwards, odd id = the reverse).

#include <memory>
#include <vector>

#include "ctwin/fabric/builders/server_layout.hpp"
#include "ctwin/fabric/builders/tier_plan.hpp"
#include "ctwin/fabric/cluster_spec.hpp"
#include "ctwin/fabric/elements.hpp"

namespace ctwin::fabric {

class Fabric {
 public:
  /// Builds the first `gpus` GPUs of `spec`, filling nodes in order (the last node may be partly
  /// used). Throws InputError naming `--gpus` for a count no build can have (not positive, or
  /// beyond any build ctwin models), and the topology file when this cluster cannot hold them.
  Fabric(ClusterSpec spec, int gpus);
  ~Fabric();
  Fabric(Fabric&&) noexcept;
  Fabric& operator=(Fabric&&) noexcept;

  [[nodiscard]] const ClusterSpec& spec() const { return spec_; }
  [[nodiscard]] const ServerLayout& server() const { return server_; }
  [[nodiscard]] const TierPlan& tiers() const { return plan_; }

  [[nodiscard]] int gpus() const { return gpus_; }
  [[nodiscard]] int nodes() const { return plan_.nodes; }
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
  [[nodiscard]] VertexId leaf_vertex(int leaf) const { return leaf_base_ + static_cast<VertexId>(leaf); }
  [[nodiscard]] VertexId spine_vertex(int spine) const { return spine_base_ + static_cast<VertexId>(spine); }
  [[nodiscard]] VertexId core_vertex(int core) const { return core_base_ + static_cast<VertexId>(core); }

  /// A link of the server layout, copied into node `node`.
  [[nodiscard]] LinkId node_link(int node, LinkId local) const {
    return static_cast<LinkId>(node) * links_per_node_ + local;
  }
  /// NIC `nic` of `node` towards its leaf (reverse() for leaf to NIC).
  [[nodiscard]] LinkId access_link(int node, int nic) const {
    return access_base_ + 2 * static_cast<LinkId>(node * plan_.rails + nic);
  }
  [[nodiscard]] LinkId leaf_uplink(int leaf, int k) const {
    return leaf_spine_base_ + 2 * static_cast<LinkId>(leaf * plan_.leaf_uplinks + k);
  }
  [[nodiscard]] LinkId spine_uplink(int spine, int k) const {
    return spine_core_base_ + 2 * static_cast<LinkId>(spine * plan_.spine_uplinks + k);
  }
  [[nodiscard]] int leaf_of_nic(int node, int nic) const { return nic_leaf_[static_cast<std::size_t>(node * plan_.rails + nic)]; }

  /// Links on the fewest-hops path from `from` to every vertex (breadth-first search on the
  /// Boost graph); -1 where unreachable. For summaries and tests, not for hot loops.
  [[nodiscard]] std::vector<int> hop_distances(VertexId from) const;

 private:
  struct BoostGraph;
  void add_cable(VertexId a, VertexId b, const LinkSpec& spec, LinkKind kind);

  ClusterSpec spec_;
  int gpus_ = 0;
  ServerLayout server_;
  TierPlan plan_;
  std::vector<VertexKind> vertex_kinds_;
  std::vector<Link> links_;
  std::vector<int> nic_leaf_;
  VertexId leaf_base_ = 0;
  VertexId spine_base_ = 0;
  VertexId core_base_ = 0;
  LinkId links_per_node_ = 0;
  LinkId access_base_ = 0;
  LinkId leaf_spine_base_ = 0;
  LinkId spine_core_base_ = 0;
  std::unique_ptr<BoostGraph> graph_;
};

}  // namespace ctwin::fabric
