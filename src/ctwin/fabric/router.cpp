#include "ctwin/fabric/router.hpp"

#include <algorithm>
#include <set>
#include <span>

#include "ctwin/core/error.hpp"
#include "ctwin/fabric/fabric.hpp"

namespace ctwin::fabric {
namespace {

// SplitMix64 finalizer: a fixed, platform-independent mix, so paths never depend on the
// standard library's std::hash.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

int pick(std::uint64_t flow_hash, int salt, int choices) {
  return static_cast<int>(mix(flow_hash + static_cast<std::uint64_t>(salt) * 0x632be59bd9b4e019ULL) %
                          static_cast<std::uint64_t>(choices));
}

void append_node_links(const Fabric& fabric, int node, std::span<const LinkId> local, std::vector<LinkId>& out) {
  for (LinkId id : local) out.push_back(fabric.node_link(node, id));
}

void append_switch_path(const Fabric& fabric, int leaf_a, int leaf_b, std::uint64_t flow_hash, std::vector<LinkId>& out) {
  if (leaf_a == leaf_b) return;
  const TierPlan& plan = fabric.tiers();
  const int spines_per_pod = plan.spines_per_pod;
  const int up = pick(flow_hash, 0, plan.leaf_uplinks);
  const int plane = up % spines_per_pod;
  out.push_back(fabric.leaf_uplink(leaf_a, up));
  const int pod_a = plan.pod_of_leaf(leaf_a);
  const int pod_b = plan.pod_of_leaf(leaf_b);
  CTWIN_ASSERT(!plan.per_rail || leaf_a % plan.rail_groups == leaf_b % plan.rail_groups,
               "per-rail routes change rails inside the node");
  if (pod_a != pod_b) {
    const int spine_up = pick(flow_hash, 1, plan.spine_uplinks);
    const int core = plan.core_of_uplink(pod_a, spine_up);
    out.push_back(fabric.spine_uplink(pod_a * spines_per_pod + plane, spine_up));
    const int down = plan.first_uplink_to_core(pod_b, core) +
                     plan.cores_per_plane * pick(flow_hash, 2, plan.uplinks_to_core(pod_b, core));
    out.push_back(reverse(fabric.spine_uplink(pod_b * spines_per_pod + plane, down)));
  }
  const int down = plane + spines_per_pod * pick(flow_hash, 3, plan.links_per_leaf_spine());
  out.push_back(reverse(fabric.leaf_uplink(leaf_b, down)));
}

// The node-local steps of a route; append_route() strings them together and node_route_parts()
// runs them over every input, so the two cannot drift apart.

// Either leg of an NVSwitch path between two GPUs of `node`.
void append_leg(const Fabric& fabric, int node, int src, int dst, SwitchLeg leg, std::vector<LinkId>& out) {
  const std::span<const LinkId> whole = fabric.server().gpu_to_gpu(src, dst);
  CTWIN_ASSERT(whole.size() >= 2, "an NVSwitch path has a link in and a link out");
  out.push_back(fabric.node_link(node, leg == SwitchLeg::kToSwitch ? whole.front() : whole.back()));
}

// From GPU `gpu` of `node` up its NIC's cable to the leaf, towards a destination behind NIC
// `dst_nic`: with PXN first over NVLink to the GPU on that rail. Returns the NIC it leaves by.
int append_way_out(const Fabric& fabric, int node, int gpu, int dst_nic, bool pxn, std::vector<LinkId>& out) {
  const ServerLayout& server = fabric.server();
  int nic = server.nic_of_gpu(gpu);
  // Per-rail spine groups have no switch path between rails: the change of rail must happen
  // inside the node, PXN asked for or not (NCCL's rail-local topologies rely on PXN alike).
  const int rails_per_leaf = fabric.spec().fabric.rails_per_leaf;
  const bool other_rail_group = fabric.tiers().per_rail && nic / rails_per_leaf != dst_nic / rails_per_leaf;
  if ((pxn && nic != dst_nic && fabric.spec().server.nvlink) || other_rail_group) {
    const int relay = server.gpu_of_nic(dst_nic);
    append_node_links(fabric, node, server.gpu_to_gpu(gpu, relay), out);
    gpu = relay;
    nic = dst_nic;
  }
  append_node_links(fabric, node, server.gpu_to_nic(gpu, nic), out);
  out.push_back(fabric.access_link(node, nic));
  return nic;
}

// From the leaf down GPU `gpu`'s NIC cable to the GPU.
void append_way_in(const Fabric& fabric, int node, int gpu, std::vector<LinkId>& out) {
  const int nic = fabric.server().nic_of_gpu(gpu);
  out.push_back(reverse(fabric.access_link(node, nic)));
  append_node_links(fabric, node, fabric.server().nic_to_gpu(nic, gpu), out);
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
  const std::uint64_t flow_hash =
      mix(static_cast<std::uint64_t>(src) * 0x100000001b3ULL ^ mix(static_cast<std::uint64_t>(dst)) ^
          mix(options.flow_label + 0x51ed27ULL));
  append_switch_path(fabric, fabric.leaf_of_nic(src_node, src_nic), fabric.leaf_of_nic(dst_node, dst_nic), flow_hash, out);
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
