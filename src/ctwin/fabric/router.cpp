#include "ctwin/fabric/router.hpp"

#include <algorithm>
#include <set>
#include <span>

#include "ctwin/core/error.hpp"
#include "ctwin/fabric/ecmp_hash.hpp"
#include "ctwin/fabric/fabric.hpp"

namespace ctwin::fabric {
namespace {

void append_node_links(const Fabric& fabric, int node, std::span<const LinkId> local, std::vector<LinkId>& out) {
  for (LinkId id : local) out.push_back(fabric.node_link(node, id));
}

// The node-local steps of a route; append_route() strings them together and node_route_parts()
// runs them over every input, so the two cannot drift apart.

// Either leg of an NVSwitch path between two GPUs of `node`.
void append_leg(const Fabric& fabric, int node, int src, int dst, SwitchLeg leg, std::vector<LinkId>& out) {
  const std::span<const LinkId> whole = fabric.server().gpu_to_gpu(src, dst);
  CTWIN_ASSERT(whole.size() >= 2, "an NVSwitch path has a link in and a link out");
  out.push_back(fabric.node_link(node, leg == SwitchLeg::kToSwitch ? whole.front() : whole.back()));
}

// Whether a transfer from GPU `gpu` towards NIC `dst_nic` first crosses NVLink to the GPU on
// that rail (PXN) and leaves by its NIC.
bool relays_to_rail(const Fabric& fabric, int gpu, int dst_nic, bool pxn) {
  const int nic = fabric.server().nic_of_gpu(gpu);
  // Where no switch path joins the rails (per-rail spine groups), the change of rail must happen
  // inside the node, PXN asked for or not (NCCL's rail-local topologies rely on PXN alike).
  return (pxn && nic != dst_nic && fabric.spec().server.nvlink) || fabric.topology().rails_meet_in_node_only(nic, dst_nic);
}

// From GPU `gpu` of `node` up its NIC's cable to its switch, towards a destination behind NIC
// `dst_nic`: with PXN first over NVLink to the GPU on that rail. Returns the NIC it leaves by.
int append_way_out(const Fabric& fabric, int node, int gpu, int dst_nic, bool pxn, std::vector<LinkId>& out) {
  const ServerLayout& server = fabric.server();
  int nic = server.nic_of_gpu(gpu);
  if (relays_to_rail(fabric, gpu, dst_nic, pxn)) {
    const int relay = server.gpu_of_nic(dst_nic);
    append_node_links(fabric, node, server.gpu_to_gpu(gpu, relay), out);
    gpu = relay;
    nic = dst_nic;
  }
  append_node_links(fabric, node, server.gpu_to_nic(gpu, nic), out);
  out.push_back(fabric.access_link(node, nic));
  return nic;
}

// From the NIC's switch down GPU `gpu`'s NIC cable to the GPU.
void append_way_in(const Fabric& fabric, int node, int gpu, std::vector<LinkId>& out) {
  const int nic = fabric.server().nic_of_gpu(gpu);
  out.push_back(reverse(fabric.access_link(node, nic)));
  append_node_links(fabric, node, fabric.server().nic_to_gpu(nic, gpu), out);
}

// The ECMP hash of one flow: the same (source, destination, label, seed), the same path.
std::uint64_t route_flow_hash(const Fabric& fabric, GpuId src, GpuId dst, std::uint64_t flow_label) {
  std::uint64_t flow_hash =
      ecmp_mix(static_cast<std::uint64_t>(src) * 0x100000001b3ULL ^ ecmp_mix(static_cast<std::uint64_t>(dst)) ^
               ecmp_mix(flow_label + 0x51ed27ULL));
  // Seed 0 leaves the hash as it always was, so reports without a seed keep their bytes.
  if (const std::int64_t seed = fabric.spec().fabric.ecmp_seed; seed != 0) {
    flow_hash = ecmp_mix(flow_hash ^ ecmp_mix(static_cast<std::uint64_t>(seed) * 0xd6e8feb86659fd93ULL));
  }
  return flow_hash;
}

}  // namespace

void append_route(const Fabric& fabric, GpuId src, GpuId dst, const RouteOptions& options, std::vector<LinkId>& out) {
  CTWIN_ASSERT(src >= 0 && src < fabric.gpus() && dst >= 0 && dst < fabric.gpus(), "GPU ids within the build");
  if (src == dst) return;
  const int src_node = fabric.node_of(src);
  const int dst_node = fabric.node_of(dst);
  const int src_local = fabric.local_index(src);
  const int dst_local = fabric.local_index(dst);
  if (options.leg != SwitchLeg::kWhole) {
    CTWIN_ASSERT(src_node == dst_node && fabric.spec().server.nvlink, "switch legs stay inside an NVLink node");
    append_leg(fabric, src_node, src_local, dst_local, options.leg, out);
    return;
  }
  if (src_node == dst_node) {
    append_node_links(fabric, src_node, fabric.server().gpu_to_gpu(src_local, dst_local), out);
    return;
  }
  const int dst_nic = fabric.server().nic_of_gpu(dst_local);
  const int src_nic = append_way_out(fabric, src_node, src_local, dst_nic, options.pxn, out);
  fabric.topology().append_switch_path(fabric, fabric.switch_of_nic(src_node, src_nic),
                                       fabric.switch_of_nic(dst_node, dst_nic),
                                       route_flow_hash(fabric, src, dst, options.flow_label), out);
  append_way_in(fabric, dst_node, dst_local, out);
}

void append_spread_route(const Fabric& fabric, GpuId src, GpuId dst, const RouteOptions& options,
                         std::vector<std::pair<LinkId, double>>& out) {
  const auto whole = [&out](const std::vector<LinkId>& links) {
    for (LinkId link : links) out.emplace_back(link, 1.0);
  };
  if (fabric.spec().fabric.routing == RoutingPolicy::kEcmp || options.leg != SwitchLeg::kWhole ||
      fabric.node_of(src) == fabric.node_of(dst)) {
    whole(route(fabric, src, dst, options));
    return;
  }
  const int src_node = fabric.node_of(src);
  const int dst_node = fabric.node_of(dst);
  const int dst_local = fabric.local_index(dst);
  const int dst_nic = fabric.server().nic_of_gpu(dst_local);
  std::vector<LinkId> links;
  const int src_nic = append_way_out(fabric, src_node, fabric.local_index(src), dst_nic, options.pxn, links);
  whole(links);
  fabric.topology().spread_switch_path(fabric, fabric.switch_of_nic(src_node, src_nic),
                                       fabric.switch_of_nic(dst_node, dst_nic),
                                       route_flow_hash(fabric, src, dst, options.flow_label), out);
  links.clear();
  append_way_in(fabric, dst_node, dst_local, links);
  whole(links);
}

int split_route_count(const Fabric& fabric, GpuId src, GpuId dst, const RouteOptions& options) {
  if (fabric.spec().fabric.routing == RoutingPolicy::kEcmp || options.leg != SwitchLeg::kWhole || src == dst ||
      fabric.node_of(src) == fabric.node_of(dst)) {
    return 1;
  }
  const int src_local = fabric.local_index(src);
  const int dst_nic = fabric.server().nic_of_gpu(fabric.local_index(dst));
  const int src_nic = relays_to_rail(fabric, src_local, dst_nic, options.pxn) ? dst_nic : fabric.server().nic_of_gpu(src_local);
  return fabric.topology().split_switch_paths(fabric.switch_of_nic(fabric.node_of(src), src_nic),
                                              fabric.switch_of_nic(fabric.node_of(dst), dst_nic));
}

void append_split_route(const Fabric& fabric, GpuId src, GpuId dst, const RouteOptions& options, int index, int count,
                        std::vector<LinkId>& out) {
  CTWIN_ASSERT(index >= 0 && index < count, "a split route's index is below its count");
  if (count == 1) {
    CTWIN_ASSERT(index == 0, "a transfer that is not split has one route");
    append_route(fabric, src, dst, options, out);
    return;
  }
  const int src_node = fabric.node_of(src);
  const int dst_node = fabric.node_of(dst);
  const int dst_local = fabric.local_index(dst);
  const int dst_nic = fabric.server().nic_of_gpu(dst_local);
  const int src_nic = append_way_out(fabric, src_node, fabric.local_index(src), dst_nic, options.pxn, out);
  fabric.topology().append_split_switch_path(fabric, fabric.switch_of_nic(src_node, src_nic),
                                             fabric.switch_of_nic(dst_node, dst_nic),
                                             route_flow_hash(fabric, src, dst, options.flow_label), index, out);
  append_way_in(fabric, dst_node, dst_local, out);
}

std::vector<std::vector<LinkId>> node_route_parts(const Fabric& fabric, int node) {
  // append_route()'s node-local steps over every input they can get; a test routes every GPU
  // pair of small builds, with and without PXN and legs, and finds each route's runs here.
  const ServerLayout& server = fabric.server();
  std::set<std::vector<LinkId>> parts;
  const auto add = [&](auto append_part) {
    std::vector<LinkId> links;
    append_part(links);
    parts.insert(std::move(links));
  };
  for (int a = 0; a < server.gpus(); ++a) {
    for (int b = 0; b < server.gpus(); ++b) {
      if (a == b) continue;
      add([&](auto& out) { append_node_links(fabric, node, server.gpu_to_gpu(a, b), out); });
      if (fabric.spec().server.nvlink && server.gpu_to_gpu(a, b).size() >= 2) {
        for (SwitchLeg leg : {SwitchLeg::kToSwitch, SwitchLeg::kFromSwitch}) {
          add([&](auto& out) { append_leg(fabric, node, a, b, leg, out); });
        }
      }
    }
    for (int b = 0; b < server.gpus(); ++b) {  // b: any GPU, for the NIC it is reached by
      for (bool pxn : {false, true}) {
        add([&](auto& out) { append_way_out(fabric, node, a, server.nic_of_gpu(b), pxn, out); });
      }
    }
    add([&](auto& out) { append_way_in(fabric, node, a, out); });
  }
  return {parts.begin(), parts.end()};
}

PathProperties path_properties(const Fabric& fabric, const std::vector<LinkId>& path) {
  PathProperties properties;
  if (path.empty()) return properties;
  properties.bottleneck = fabric.link(path.front()).achieved();
  for (LinkId id : path) {
    const Link& link = fabric.link(id);
    properties.latency += link.latency;
    properties.bottleneck = std::min(properties.bottleneck, link.achieved());
  }
  return properties;
}

std::vector<LinkId> route(const Fabric& fabric, GpuId src, GpuId dst, const RouteOptions& options) {
  std::vector<LinkId> links;
  append_route(fabric, src, dst, options, links);
  return links;
}

}  // namespace ctwin::fabric
