#pragma once
// The data loader's reads from a shared tier on the compute fabric, as flows of the `flow`
// model (docs/io.md): each of the tier's servers gets a port link of its read rate, the tier
// one link of its aggregate where that is below the servers' sum, and a read from server s to
// reading node n is split over n's NICs, each part a flow through s's port, the aggregate and
// the fabric's way down to that NIC (fabric/storage_routes.hpp). A node's bytes are spread
// evenly over the servers (files striped over the whole tier).
//
// With prefetch ≥ 1 the reads for the next step start with the step and share its links; the
// loader's remote read time is when the last of them arrives. With prefetch 0 they run between
// steps, alone on the fabric (idle_fabric_read).
//
// Checkpoint writes (checkpoint_step.hpp) take the same flows the other way: each part climbs
// the reversed route, GPU, NIC, leaf, top switch, into a server's port of its write rate.

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "ctwin/core/units.hpp"
#include "ctwin/fabric/fabric.hpp"
#include "ctwin/fabric/storage_spec.hpp"
#include "ctwin/network/flow_model.hpp"
#include "ctwin/replay/placement.hpp"
#include "ctwin/replay/scenario.hpp"

namespace ctwin::replay {

/// What the reads of one step did on the fabric.
struct FabricReadResult {
  double read_s = 0;    ///< from their start to the last byte's arrival
  Bytes requested;      ///< over all readers
  Bytes delivered;      ///< arrived by the end of the simulation (conservation: = requested)
  std::size_t flows = 0;
};

/// Which way the bytes go: the loader's reads come down from the tier, a checkpoint goes up to it.
enum class StorageDirection { kRead, kWrite };

class FabricStorageReads {
 public:
  /// Adds the tier's links to `network` (before any of its flows; made with
  /// FlowModelOptions::extra_links = links_needed(tier)) and routes every reader's parts.
  /// `network`, `fabric` and `tier` outlive the object.
  FabricStorageReads(network::FlowModel& network, const fabric::Fabric& fabric, const fabric::StorageTierSpec& tier,
                     std::vector<int> reader_nodes, StorageDirection direction = StorageDirection::kRead);

  /// The links the tier adds: a port per server, and its aggregate.
  [[nodiscard]] static std::size_t links_needed(const fabric::StorageTierSpec& tier) {
    return static_cast<std::size_t>(tier.servers) + 1;
  }
  /// Starts `bytes_per_node` to every reader at the simulator's now.
  void start(double bytes_per_node);
  /// Once the simulation has run past the last arrival.
  [[nodiscard]] FabricReadResult result() const;

 private:
  network::FlowModel& network_;
  std::vector<int> readers_;
  std::size_t servers_ = 0;
  std::size_t nics_ = 0;
  std::vector<std::vector<fabric::LinkId>> paths_;  // by (reader, nic, server)
  SimTime started_;
  SimTime last_arrival_;
  std::int64_t requested_ = 0;
  std::int64_t delivered_ = 0;
  std::size_t left_ = 0;
};

/// The reads alone on an idle fabric (a simulation of their own).
[[nodiscard]] FabricReadResult idle_fabric_read(const fabric::Fabric& fabric, const fabric::StorageTierSpec& tier,
                                                const std::vector<int>& reader_nodes, double bytes_per_node,
                                                StorageDirection direction = StorageDirection::kRead);

/// Puts the loader's reads of a step about to start on `built`. Prefetch ≥ 1: makes the flow
/// model the step's executor is to share (`network`) and starts the reads on it now (`reads`;
/// their time is reads->result() after the run); returns none. Prefetch 0: times the reads alone
/// on an idle fabric and returns that.
[[nodiscard]] std::optional<double> start_fabric_reads(const Scenario& scenario,
                                                       const std::shared_ptr<const fabric::Fabric>& built,
                                                       const Placement& placement, std::int64_t stage_gpus,
                                                       engine::Simulator& simulator,
                                                       std::unique_ptr<network::FlowModel>& network,
                                                       std::unique_ptr<FabricStorageReads>& reads);

/// Does this scenario's loader read over the compute fabric, so that `flow` moves its reads?
[[nodiscard]] bool reads_on_compute_fabric(const Scenario& scenario);

/// The nodes holding the first pipeline stage's `stage_gpus` ranks, in rank order.
[[nodiscard]] std::vector<int> reader_nodes_of(const fabric::Fabric& fabric, const Placement& placement,
                                               std::int64_t stage_gpus);

/// The remote bytes each of those nodes reads a step, from the closed form's per-node figure
/// (the slowest node's, cache hits left out) over the closed form's readers.
[[nodiscard]] double remote_bytes_per_reader(const Scenario& scenario, std::size_t readers);

}  // namespace ctwin::replay
