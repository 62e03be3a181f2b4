#pragma once
// The seam between the flat Fabric and the shape of its switch network (docs/extending.md,
// "Adding a fabric kind"). A Topology plans a build of N nodes from a ClusterSpec, wires its
// switches, routes between the switches that NICs plug into, and answers what the rest of the
// code asks about the shape: parts to degrade, switch tiers, placement classes of GPU pairs and
// the unit a sampled replay may stand for. The server, its NVLink/PCIe paths, PXN and the NIC
// cables stay in Fabric and the router, shared by every kind; network models, collectives and
// the replay see routes (lists of links) only. Kinds are looked up by the topology file's
// fabric.kind in topology_registry.cpp, in the manner of SimGrid's routing zones.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ctwin/fabric/cluster_spec.hpp"
#include "ctwin/fabric/elements.hpp"

namespace ctwin {
class JsonObjectReader;
}

namespace ctwin::fabric {

class Fabric;
struct BuildWarning;
struct FabricSummary;

/// One tier of switches, in the order their vertices are numbered.
struct TierSize {
  std::string name;  ///< "leaf", "spine", "core", "router": the summary's and the bill's word
  VertexKind kind = VertexKind::kLeaf;
  int switches = 0;
  double oversubscription = 1;  ///< downlink : uplink bandwidth (1 for a top tier)
};

/// A placement class of GPU pairs and one pair of it, for the summary's hop table.
struct PairProbe {
  std::string pair_class;
  GpuId from = 0;
  GpuId to = 0;
  bool pxn = false;
};

/// Where a Topology puts its switch cables while Fabric builds. Switches are numbered tier by
/// tier as tiers() lists them; the n-th cable gets the link pair Fabric::switch_link(n).
class SwitchWiring {
 public:
  virtual ~SwitchWiring() = default;
  virtual void cable(int switch_a, int switch_b, const LinkSpec& spec, LinkKind kind) = 0;
};

class Topology {
 public:
  virtual ~Topology() = default;

  [[nodiscard]] virtual int nodes() const = 0;
  /// Levels of switches a route may climb (the summary's "tiers").
  [[nodiscard]] virtual int levels() const = 0;
  [[nodiscard]] virtual std::vector<TierSize> tiers() const = 0;

  // --- building ---
  [[nodiscard]] virtual long long switch_cables() const = 0;
  virtual void wire(SwitchWiring& wiring) const = 0;
  /// The switch NIC `nic` of node `node` plugs into.
  [[nodiscard]] virtual int access_switch(int node, int nic) const = 0;

  // --- routing ---
  /// Whether no switch path joins NIC `src_nic`'s rail to `dst_nic`'s, so that a transfer must
  /// change rails over NVLink inside the node (per-rail spine groups).
  [[nodiscard]] virtual bool rails_meet_in_node_only(int src_nic, int dst_nic) const {
    (void)src_nic;
    (void)dst_nic;
    return false;
  }
  /// Appends the switch cables from switch `from` to switch `to` (nothing when equal); `flow_hash`
  /// picks among equal-cost paths, always the same one for the same hash.
  virtual void append_switch_path(const Fabric& fabric, int from, int to, std::uint64_t flow_hash,
                                  std::vector<LinkId>& out) const = 0;
  /// Adaptive routing: appends every switch cable a flow from `from` to `to` crosses when spread
  /// evenly over all equal-cost paths, with the share of the flow's bytes it carries. A kind
  /// that does not enumerate its paths keeps the hashed one (share 1); the spec refuses
  /// `routing: adaptive` on such kinds.
  virtual void spread_switch_path(const Fabric& fabric, int from, int to, std::uint64_t flow_hash,
                                  std::vector<std::pair<LinkId, double>>& out) const {
    std::vector<LinkId> path;
    append_switch_path(fabric, from, to, flow_hash, path);
    for (LinkId link : path) out.emplace_back(link, 1.0);
  }
  /// Adaptive routing on a model that moves whole flows (`flow`): how many equal-cost switch
  /// paths from `from` to `to` a flow is split over, in equal parts. A kind that does not
  /// enumerate its paths keeps one, the hashed path (the spec refuses adaptive on it).
  [[nodiscard]] virtual int split_switch_paths(int from, int to) const {
    (void)from;
    (void)to;
    return 1;
  }
  /// Appends path `index` (< split_switch_paths(from, to)) of that split; `flow_hash` may pick
  /// where the kind has more equal-cost paths than parts.
  virtual void append_split_switch_path(const Fabric& fabric, int from, int to, std::uint64_t flow_hash, int index,
                                        std::vector<LinkId>& out) const {
    (void)index;
    append_switch_path(fabric, from, to, flow_hash, out);
  }

  // --- parts (--degrade, accept's suspects) ---
  /// The name of switch cable `even` (its even link id) in `--degrade link:NAME`, or "".
  [[nodiscard]] virtual std::string cable_name(const Fabric& fabric, LinkId even) const = 0;
  /// The switch cable NAME names: nullopt with `problem` empty when NAME has none of this kind's
  /// forms, with `problem` set when it has one but the build has no such cable.
  [[nodiscard]] virtual std::optional<LinkId> find_cable(const Fabric& fabric, std::string_view name,
                                                         std::string& problem) const = 0;
  /// The forms of cable_name(), for error messages ("leafL.upK or spineS.upK").
  [[nodiscard]] virtual std::string cable_forms() const = 0;
  /// Switches degraded as a whole through their uplinks (`leaf:ID=uplinks:SHARE`): 0 when none.
  [[nodiscard]] virtual int uplink_parts() const { return 0; }
  [[nodiscard]] virtual std::vector<LinkId> uplinks(const Fabric& fabric, int part) const {
    (void)fabric;
    (void)part;
    return {};
  }
  /// The uplinks part switch cable `link` belongs to, if any.
  [[nodiscard]] virtual std::optional<int> uplink_part_of(const Fabric& fabric, LinkId link) const {
    (void)fabric;
    (void)link;
    return std::nullopt;
  }

  /// The cables a lost leaf (`leaf:ID=down`) takes down, where losing it cuts no node off (a
  /// dual plane's leaf: its nodes keep their other plane); empty where it would.
  [[nodiscard]] virtual std::vector<LinkId> lost_leaf_cables(const Fabric& fabric, int leaf) const {
    (void)fabric;
    (void)leaf;
    return {};
  }

  // --- summary and build checks ---
  /// Fills the summary's shape fields (tiers, pods, scalable units, rail groups).
  virtual void describe(FabricSummary& summary) const = 0;
  /// Scale-out bisection bandwidth, per direction, in bytes per second.
  [[nodiscard]] virtual double bisection(const Fabric& fabric) const = 0;
  /// One GPU pair per placement class the build has, for the hop table.
  [[nodiscard]] virtual std::vector<PairProbe> probes(const Fabric& fabric) const = 0;
  /// Warnings on ports this plan leaves idle or stranded.
  virtual void check(std::vector<BuildWarning>& warnings) const {
    (void)warnings;
  }

  // --- placement units (accept's path classes, --flow-sample, the floor plan) ---
  /// Nodes of the fabric's repeating unit (scalable unit, leaf, dragonfly group): accept's
  /// "cross SU" class joins GPUs of different units.
  [[nodiscard]] virtual int nodes_per_unit() const = 0;
  /// Whether NIC k of every node of a unit shares a switch with NIC k only (rails), so that a
  /// replica's own nodes stand for themselves (--flow-sample replica).
  [[nodiscard]] virtual bool rail_aligned() const = 0;
  /// Nodes whose NICs one access switch takes (0: a rail-optimized unit's, see nodes_per_unit).
  [[nodiscard]] virtual int nodes_per_access_switch() const = 0;
};

/// A fabric kind: the topology file's fabric.kind, its own fields and its Topology.
struct TopologyKind {
  const char* name;
  /// Reads and checks the kind's own fields of the fabric object (the shared ones, switch and
  /// link, are read already) into `fabric`.
  void (*read)(JsonObjectReader& reader, const ServerSpec& server, FabricSpec& fabric);
  /// Plans a build of `nodes` nodes; throws InputError naming the file and field when it cannot.
  std::unique_ptr<Topology> (*plan)(const ClusterSpec& spec, int nodes);
};

/// Every registered kind, in the order `--help` and errors list them.
[[nodiscard]] const std::vector<TopologyKind>& topology_kinds();
[[nodiscard]] std::vector<std::string> topology_kind_names();
/// The plan of `spec`'s kind for `nodes` nodes (cheap: no links are built).
[[nodiscard]] std::unique_ptr<Topology> plan_topology(const ClusterSpec& spec, int nodes);

}  // namespace ctwin::fabric
