#include "ctwin/fabric/lockstep.hpp"

#include <map>
#include <numeric>

#include "ctwin/fabric/fabric.hpp"
#include "ctwin/fabric/router.hpp"

namespace ctwin::fabric {

std::vector<LinkId> lockstep_representatives(const Fabric& fabric) {
  std::vector<LinkId> representative(fabric.links().size());
  std::iota(representative.begin(), representative.end(), LinkId{0});

  // A node's links as keys shared by every node: its server links by local id, then each NIC's
  // cable up and down.
  const auto server_links = static_cast<LinkId>(fabric.server().links().size());
  const int rails = fabric.server().nics();
  const LinkId first_access = fabric.access_link(0, 0);
  const auto key_of = [&](LinkId node0_link) {
    return node0_link < server_links ? node0_link : server_links + (node0_link - first_access);
  };
  const auto link_of = [&](int node, LinkId key) {
    if (key < server_links) return fabric.node_link(node, key);
    const LinkId access = key - server_links;
    return fabric.access_link(node, static_cast<int>(access / 2)) ^ (access & 1U);
  };

  // Each key's parts, in order and with repeats: equal lists, equal flows.
  std::vector<std::vector<std::uint32_t>> parts_of(server_links + 2 * static_cast<LinkId>(rails));
  const std::vector<std::vector<LinkId>> parts = node_route_parts(fabric, 0);
  for (std::uint32_t p = 0; p < parts.size(); ++p) {
    for (LinkId link : parts[p]) parts_of[key_of(link)].push_back(p);
  }
  std::map<std::vector<std::uint32_t>, std::vector<LinkId>> sets;
  for (LinkId key = 0; key < parts_of.size(); ++key) {
    if (!parts_of[key].empty()) sets[parts_of[key]].push_back(key);
  }

  // The slowest is chosen node by node: a degraded part (fabric/degradation) makes one node's
  // set slower in another link than node 0's.
  for (const auto& [signature, keys] : sets) {
    if (keys.size() < 2) continue;
    for (int node = 0; node < fabric.nodes(); ++node) {
      LinkId slowest = keys.front();
      for (LinkId key : keys) {
        if (fabric.link(link_of(node, key)).achieved() < fabric.link(link_of(node, slowest)).achieved()) slowest = key;
      }
      const LinkId stands_for = link_of(node, slowest);
      for (LinkId key : keys) representative[link_of(node, key)] = stands_for;
    }
  }
  return representative;
}

}  // namespace ctwin::fabric
