#pragma once
// What a topology file says: one server type and the scale-out fabric that joins the servers.
// Plain structs, filled by load_cluster() from topologies/*.json; the builders turn them into
// a Fabric. Every latency is one-way and per link (a hop), every bandwidth per direction.

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "ctwin/core/units.hpp"
#include "ctwin/fabric/storage_spec.hpp"

namespace ctwin::fabric {

/// A class of point-to-point link: rate per direction and one-way latency of one hop,
/// including the forwarding delay of the device it enters.
struct LinkSpec {
  Bandwidth bandwidth;  ///< the signalling rate after line encoding, as datasheets give it
  SimTime latency;
  /// Share of `bandwidth` that GPU traffic achieves as payload (packet headers, flow control,
  /// DMA engines): NVLink about 0.8, PCIe about 0.76. Defaults per link class are in
  /// default_efficiency(); a topology file or a calibration may set it per class.
  double efficiency = 1;

  [[nodiscard]] Bandwidth achieved() const { return bandwidth * efficiency; }
  friend bool operator==(const LinkSpec&, const LinkSpec&) = default;
};

/// The GPUs' scale-up domain: each GPU has `bandwidth` per direction into a switch chip set
/// that joins every GPU of the server (NVSwitch), or of the rack for NVL72.
struct NvlinkSpec {
  int generation = 0;
  LinkSpec link;
  bool nvls = false;  ///< in-switch reductions (NVLink SHARP)
  friend bool operator==(const NvlinkSpec&, const NvlinkSpec&) = default;
};

enum class NetworkTechnology { kInfiniBand, kRoce };

struct NicSpec {
  std::string model;
  int count = 0;  ///< per server; GPUs are spread evenly over them
  LinkSpec link;  ///< the NIC's port to its leaf switch
  NetworkTechnology technology = NetworkTechnology::kInfiniBand;
  friend bool operator==(const NicSpec&, const NicSpec&) = default;
};

/// One server (or rack-scale node): GPUs, NVLink, PCIe switches, CPU sockets and NICs. GPUs
/// and NICs are spread evenly over PCIe switches, PCIe switches evenly over CPU sockets.
struct ServerSpec {
  std::string name;
  std::string gpu;  ///< GPU model name, e.g. "h100-sxm"
  /// The "arch" of the GPU's profile ("hopper"), which the topology file does not say: filled by
  /// whoever resolves the profile (api::attach_gpu_arch, replay's scenario loader); empty until
  /// then, and a collective refuses to plan on a fabric whose GPU family is not known.
  std::string gpu_arch;
  int gpus = 0;
  std::optional<NvlinkSpec> nvlink;  ///< none on PCIe-only servers
  int cpus = 1;
  int pcie_switches = 0;  ///< 0: GPUs and NICs hang off the CPUs' root ports
  int pcie_generation = 0;
  LinkSpec pcie;                     ///< one x16 link
  std::optional<LinkSpec> cpu_link;  ///< socket to socket (UPI / xGMI); required with cpus > 1
  NicSpec nics;
  friend bool operator==(const ServerSpec&, const ServerSpec&) = default;
};

/// How NICs are wired to leaf switches.
enum class FabricKind {
  kRailOptimized,  ///< NIC k of every node of a scalable unit goes to the leaf of rail k
  kTopOfRack,      ///< all NICs of a node go to the same leaf (a classic fat tree)
};

/// Which spines a rail-optimized leaf climbs to.
enum class SpineGroups {
  kShared,   ///< every leaf of a pod reaches every spine of the pod
  kPerRail,  ///< each rail's leaves reach only that rail's own spines (DGX GB200 RA "spine-leaf
             ///< groups"); traffic changes rails over NVLink inside the node (PXN)
};

struct SwitchSpec {
  std::string model;
  int ports = 0;  ///< radix at the fabric's link speed
  int ports_per_transceiver = 1;  ///< 2 for twin-port OSFP cages
};

/// Several sites, each a copy of the fabric, joined by data-centre interconnect (DCI) links
/// between one border switch per site (fabric/topologies/multi_site.hpp).
struct SitesSpec {
  int count = 1;
  int dci_links = 0;  ///< DCI links between each pair of sites
  LinkSpec dci;       ///< one DCI link: rate per direction and one-way latency (fibre and optics)
  LinkSpec border;    ///< each access switch's cable to its site's border switch
};

enum class RoutingPolicy : std::uint8_t { kEcmp, kAdaptive };

struct FabricSpec {
  /// The topology file's fabric.kind: which Topology builds it (fabric/topology.hpp).
  std::string kind_name = "rail_optimized";
  /// Fat trees: how NICs reach the leaves. Other kinds attach every NIC of a node to one switch
  /// and say kTopOfRack.
  FabricKind kind = FabricKind::kRailOptimized;
  /// Numbers of kinds beyond the fat tree, by field name, as their reader checked them (see
  /// TopologyKind::read): a kind needs no field of its own here.
  std::map<std::string, double> parameters;
  int nodes_per_su = 0;    ///< rail-optimized: nodes in one scalable unit
  int rails_per_leaf = 1;  ///< rail-optimized: rails sharing one leaf switch
  SpineGroups spine_groups = SpineGroups::kShared;
  /// kPerRail: leaves in one rail's spine group, whose spines are sized for it (and keep their
  /// core uplinks) however few of its leaves a build fills; 0: as many as a spine can take.
  int leaves_per_spine_group = 0;
  SwitchSpec switch_spec;
  LinkSpec link;  ///< switch-to-switch links
  double leaf_oversubscription = 1;   ///< leaf downlink : uplink bandwidth
  double spine_oversubscription = 1;  ///< spine downlink : uplink bandwidth (three tiers)
  int max_tiers = 3;
  /// Seeds the switches' ECMP hash (router.cpp): 0 is the hash every earlier report used; other
  /// values send the same flows down other equal-cost paths, so a step's spread over seeds is
  /// what ECMP luck alone moves it (docs/size.md, "ECMP hash luck").
  std::int64_t ecmp_seed = 0;
  /// How switches place a flow on equal-cost paths: kEcmp hashes it onto one; kAdaptive spreads
  /// it evenly over all of them (packet spraying, as Spectrum-X and InfiniBand AR do).
  RoutingPolicy routing = RoutingPolicy::kEcmp;
  /// "sites": several copies of this fabric joined by DCI; none for one site.
  std::optional<SitesSpec> sites;
};

/// One group of a heterogeneous pool (docs/heterogeneous.md): `nodes` servers of the cluster's
/// server type, or of the group's own `server`, whose accelerator is the profile `gpu` names. The
/// groups are consecutive nodes of the one build, in file order, so the fabric the file describes
/// is what joins them.
struct NodeGroupSpec {
  std::string name;
  std::string gpu;  ///< a GPU profile (models/gpus), resolved by the scenario loader
  std::int64_t nodes = 0;
  /// The group's own server (NVLink, PCIe, NICs), as the file's `server` block; none: the file's.
  /// As many GPUs per node as the file's server, its `gpu` the group's.
  std::optional<ServerSpec> server;
};

struct ClusterSpec {
  std::string name;
  std::string description;
  std::vector<std::string> sources;
  ServerSpec server;
  FabricSpec fabric;
  std::optional<StorageSpec> storage;  ///< "storage": where training data is read from (storage_spec.hpp)
  std::vector<NodeGroupSpec> node_groups;  ///< "node_groups": empty for a homogeneous cluster
  /// Whether a Fabric of this spec lays the groups' own servers on their nodes (fabric.hpp): set
  /// for a job's pool, its groups in its order (replay::pool_build). A topology file alone builds
  /// every node as its `server` (size, collective: the parts catalog prices the file's NICs).
  bool build_group_servers = false;
  std::string file;  ///< where it was read from, for error messages
};

/// Reads and validates a topology file, applying `overrides` ("fabric.switch.ports=128") first.
/// Throws InputError naming the file and field on any problem.
[[nodiscard]] ClusterSpec load_cluster(const std::filesystem::path& path,
                                       const std::vector<std::string>& overrides = {});
/// Same, from an already loaded document; `source` names it in errors.
[[nodiscard]] ClusterSpec parse_cluster(const nlohmann::json& document, const std::string& source);

/// One node's path to a shared storage tier of `spec` (B/s): the storage network's ports of the
/// node, or its compute NICs together when the tier attaches to the compute fabric.
[[nodiscard]] double storage_node_path_Bps(const ClusterSpec& spec, const StorageTierSpec& tier);

/// What NCCL's topology model assumes a link delivers, as a share of the raw rate (NCCL
/// src/graph/topo.h and topo.cc, master at 5067397c): NVLink 20.0 GB/s per 25 GB/s link for
/// generations 2 and 3 (SM70/SM80_NVLINK_BW), 20.6 of 25 for generation 4 (SM90), 40.1 of 50
/// for generation 5 (SM100), 18 of 20 for generation 1 (SM60); PCIe width × speed / 80 GB/s,
/// i.e. 12 GB/s for a Gen3 x16 link of 15.75 GB/s raw, 24 of 31.5 for Gen4, 48 of 63 for Gen5
/// (0.762; 0.75 for the 8b/10b generations 1 and 2). NICs, switch links and socket links: 1,
/// as NCCL takes the port speed as it is.
[[nodiscard]] double default_nvlink_efficiency(int generation);
[[nodiscard]] double default_pcie_efficiency(int generation);

[[nodiscard]] const char* to_string(NetworkTechnology technology);
[[nodiscard]] const char* to_string(FabricKind kind);
[[nodiscard]] const char* to_string(SpineGroups groups);

}  // namespace ctwin::fabric
