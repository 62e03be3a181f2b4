#include "ctwin/fabric/storage_routes.hpp"

#include <algorithm>

#include "ctwin/core/error.hpp"
#include "ctwin/fabric/fabric.hpp"
#include "ctwin/fabric/router.hpp"

namespace ctwin::fabric {

std::vector<LinkId> storage_read_route(const Fabric& fabric, int node, int nic, std::uint64_t label) {
  const int per_node = fabric.gpus_per_node();
  const int nics = std::max(1, fabric.spec().server.nics.count);
  CTWIN_ASSERT(node >= 0 && node < fabric.nodes() && nic >= 0 && nic < nics, "a read goes to a NIC of the build");
  if (fabric.nodes() == 1) return {reverse(fabric.access_link(node, nic))};
  // The GPU behind the NIC (rail r serves GPUs r·gpus/nics on), and the same GPU of the node
  // half the build away: the route between them climbs as high as the fabric goes for this
  // node, and its way down from the top is the read's.
  const int local = nic * per_node / nics;
  const auto gpu_on = [&](int n) { return static_cast<GpuId>(std::min(n * per_node + local, fabric.gpus() - 1)); };
  const int far = (node + fabric.nodes() / 2) % fabric.nodes();
  RouteOptions options;
  options.flow_label = label;
  const std::vector<LinkId> path = route(fabric, gpu_on(far), gpu_on(node), options);
  // The last link leaving a switch of the route's highest tier starts the way down.
  std::size_t top = path.size();
  VertexKind highest = VertexKind::kGpu;
  for (std::size_t i = 0; i < path.size(); ++i) {
    const VertexKind kind = fabric.vertex_kind(fabric.link(path[i]).from);
    if (is_fabric_switch(kind) && (top == path.size() || kind >= highest)) {
      highest = kind;
      top = i;
    }
  }
  if (top == path.size()) return {reverse(fabric.access_link(node, nic))};  // no switch between them
  return {path.begin() + static_cast<std::ptrdiff_t>(top), path.end()};
}

}  // namespace ctwin::fabric
