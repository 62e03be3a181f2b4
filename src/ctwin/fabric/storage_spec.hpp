#pragma once
// The storage a build reads its training data from (docs/io.md): shared tiers (a parallel file
// system, an object store) made of storage servers behind a network, and node-local tiers (NVMe
// drives, host memory) inside every server. Plain structs read from a topology file's optional
// "storage" object; the data pipeline (replay/data_pipeline.hpp) times reads through them and
// the bill of materials counts their parts.
//
// A shared tier's aggregate read rate is servers × read per server, capped by the tier's own
// system figure where the vendor publishes one below that sum. A node reaches a shared tier over
// the storage (front-end) network's ports of the node, or over its compute NICs when the tier
// attaches to the compute fabric.

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "ctwin/core/units.hpp"

namespace ctwin::fabric {

enum class StorageKind { kParallelFs, kObjectStore, kLocalNvme, kHostMemory };

/// How nodes reach a tier: the storage network's own ports, the compute fabric's NICs, or inside
/// the node (node-local tiers).
enum class StorageAttach { kStorageNetwork, kComputeFabric, kInNode };

struct StorageTierSpec {
  std::string name;
  StorageKind kind = StorageKind::kParallelFs;
  StorageAttach attach = StorageAttach::kStorageNetwork;
  // Shared tiers.
  long long servers = 0;
  Bandwidth read_per_server;
  Bandwidth write_per_server;  ///< zero where the file gives none (reads do not need it)
  std::optional<double> aggregate_read_cap_Bps;  ///< the system's published figure, when below the sum
  std::optional<double> metadata_ops_per_s;      ///< file opens per second the whole tier serves
  // Node-local tiers.
  Bandwidth read_per_node;
  Bandwidth write_per_node;  ///< zero where the file gives none
  // Parts for the bill of materials: a storage server (shared) or a drive (node-local), `units`
  // of them (servers, or drives per node).
  std::string part;
  long long part_units = 0;
  std::vector<std::string> sources;

  [[nodiscard]] bool shared() const { return kind == StorageKind::kParallelFs || kind == StorageKind::kObjectStore; }
  /// Servers × read per server, capped by aggregate_read_cap_Bps (shared tiers; B/s).
  [[nodiscard]] double aggregate_read_Bps() const;
};

struct StorageSpec {
  std::optional<Bandwidth> node_link;  ///< "network": {"node_bandwidth"}: a node's storage-network ports together
  std::vector<StorageTierSpec> tiers;

  /// The tier called `name`, or null.
  [[nodiscard]] const StorageTierSpec* find(const std::string& name) const;
};

/// Reads a topology file's "storage" object (`pointer` is where it sits, for messages).
/// InputError naming `source` and the field on a bandwidth without its unit, an unknown kind or
/// attachment, a shared tier without servers, a name given twice or a tier attached to a storage
/// network the file does not describe.
[[nodiscard]] StorageSpec parse_storage(const nlohmann::json& object, const std::string& source,
                                        const std::string& pointer);

[[nodiscard]] const char* to_string(StorageKind kind);
[[nodiscard]] const char* to_string(StorageAttach attach);

}  // namespace ctwin::fabric
