#pragma once
// One server as a small graph (GPUs, NVSwitch, PCIe switches, CPUs, NICs) with the routes
// between its endpoints. Every node of a cluster is a copy of it (a node group's own server
// only at other rates, fabric.hpp), so routes are computed once here and offset per node.

#include <span>
#include <string>
#include <vector>

#include "ctwin/fabric/cluster_spec.hpp"
#include "ctwin/fabric/elements.hpp"

namespace ctwin::fabric {

class ServerLayout {
 public:
  /// `source` names the topology file in errors (a server whose GPUs cannot reach each other).
  ServerLayout(const ServerSpec& spec, const std::string& source);

  [[nodiscard]] int gpus() const { return gpus_; }
  [[nodiscard]] int nics() const { return nics_; }
  [[nodiscard]] int vertex_count() const { return static_cast<int>(vertex_kinds_.size()); }
  [[nodiscard]] const std::vector<VertexKind>& vertex_kinds() const { return vertex_kinds_; }
  /// Cables as link pairs over local vertex ids.
  [[nodiscard]] const std::vector<Link>& links() const { return links_; }

  [[nodiscard]] VertexId gpu_vertex(int gpu) const { return static_cast<VertexId>(gpu); }
  [[nodiscard]] VertexId nic_vertex(int nic) const { return static_cast<VertexId>(nic_base_ + nic); }
  /// The NIC a GPU uses (its rail): GPUs are spread evenly over NICs.
  [[nodiscard]] int nic_of_gpu(int gpu) const { return gpu / (gpus_ / nics_); }
  /// The first GPU served by a NIC: where PXN moves data before it leaves the node.
  [[nodiscard]] int gpu_of_nic(int nic) const { return nic * (gpus_ / nics_); }

  /// Local link ids from GPU to GPU, GPU to NIC and NIC to GPU (fastest path by bytes/s).
  [[nodiscard]] std::span<const LinkId> gpu_to_gpu(int from, int to) const { return route(from, to); }
  [[nodiscard]] std::span<const LinkId> gpu_to_nic(int gpu, int nic) const { return route(gpu, gpus_ + nic); }
  [[nodiscard]] std::span<const LinkId> nic_to_gpu(int nic, int gpu) const { return route(gpus_ + nic, gpu); }

  /// Whether `other` has the same parts, cables and routes, whatever their rates: a node built
  /// from either is routed alike (a pool group's own server on a built fabric, fabric.hpp).
  [[nodiscard]] bool routes_alike(const ServerLayout& other) const;

 private:
  [[nodiscard]] std::span<const LinkId> route(int from_endpoint, int to_endpoint) const;
  void add_cable(VertexId a, VertexId b, LinkSpec spec, LinkKind kind);
  void compute_routes(const std::string& source);

  int gpus_ = 0;
  int nics_ = 0;
  int nic_base_ = 0;
  std::vector<VertexKind> vertex_kinds_;
  std::vector<Link> links_;
  // Routes between endpoints (GPUs then NICs), flattened: offsets_[i * endpoints + j].
  std::vector<std::uint32_t> route_offsets_;
  std::vector<LinkId> route_links_;
};

}  // namespace ctwin::fabric
