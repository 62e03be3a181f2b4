#include "ctwin/replay/storage_reads.hpp"

#include <algorithm>
#include <cmath>

#include "ctwin/core/error.hpp"
#include "ctwin/engine/simulator.hpp"
#include "ctwin/fabric/storage_routes.hpp"

namespace ctwin::replay {

FabricStorageReads::FabricStorageReads(network::FlowModel& network, const fabric::Fabric& fabric,
                                       const fabric::StorageTierSpec& tier, std::vector<int> reader_nodes,
                                       StorageDirection direction)
    : network_(network),
      readers_(std::move(reader_nodes)),
      servers_(static_cast<std::size_t>(tier.servers)),
      nics_(static_cast<std::size_t>(std::max(1, fabric.spec().server.nics.count))) {
  CTWIN_ASSERT(tier.shared() && tier.servers > 0, "reads come from a shared tier's servers");
  const bool write = direction == StorageDirection::kWrite;
  const double port = (write ? tier.write_per_server : tier.read_per_server).bytes_per_second();
  CTWIN_ASSERT(port > 0, "a tier's servers move bytes at a rate");
  std::vector<fabric::LinkId> ports;
  for (std::size_t s = 0; s < servers_; ++s) ports.push_back(network_.add_link(port, SimTime()));
  // The system's published figure below the servers' sum: one link every read crosses (tiers
  // publish no such figure for writes).
  const double aggregate = write ? port * static_cast<double>(servers_) : tier.aggregate_read_Bps();
  const bool capped = aggregate < port * static_cast<double>(servers_) * (1 - 1e-12);
  const fabric::LinkId system = capped ? network_.add_link(aggregate, SimTime()) : 0;
  paths_.reserve(readers_.size() * nics_ * servers_);
  for (const int node : readers_) {
    for (std::size_t nic = 0; nic < nics_; ++nic) {
      for (std::size_t s = 0; s < servers_; ++s) {
        std::vector<fabric::LinkId> path{ports[s]};
        if (capped) path.push_back(system);
        const auto down = fabric::storage_read_route(fabric, node, static_cast<int>(nic), s);
        path.insert(path.end(), down.begin(), down.end());
        if (write) {  // the same links the other way, in the order the bytes cross them
          std::reverse(path.begin(), path.end());
          for (auto& link : path) {
            if (link < fabric.links().size()) link = fabric::reverse(link);
          }
        }
        paths_.push_back(std::move(path));
      }
    }
  }
}

void FabricStorageReads::start(double bytes_per_node) {
  CTWIN_ASSERT(std::isfinite(bytes_per_node) && bytes_per_node >= 0, "a reader reads a finite number of bytes");
  started_ = last_arrival_ = network_.simulator().now();
  const auto per_node = static_cast<std::int64_t>(std::llround(bytes_per_node));
  const auto parts = static_cast<std::int64_t>(nics_ * servers_);
  std::size_t index = 0;
  for (std::size_t r = 0; r < readers_.size(); ++r) {
    // Whole bytes: the parts of a node add up to exactly its bytes.
    for (std::int64_t part = 0; part < parts; ++part, ++index) {
      const std::int64_t bytes = per_node / parts + (part < per_node % parts ? 1 : 0);
      requested_ += bytes;
      ++left_;
      network_.start_path_transfer(paths_[index], Bytes(bytes), [this, bytes] {
        delivered_ += bytes;
        --left_;
        last_arrival_ = std::max(last_arrival_, network_.simulator().now());
      });
    }
  }
}

FabricReadResult FabricStorageReads::result() const {
  CTWIN_ASSERT(left_ == 0, "every read has arrived");
  return {(last_arrival_ - started_).seconds(), Bytes(requested_), Bytes(delivered_), paths_.size()};
}

FabricReadResult idle_fabric_read(const fabric::Fabric& fabric, const fabric::StorageTierSpec& tier,
                                  const std::vector<int>& reader_nodes, double bytes_per_node,
                                  StorageDirection direction) {
  engine::Simulator simulator;
  network::FlowModelOptions options;
  options.extra_links = FabricStorageReads::links_needed(tier);
  network::FlowModel network(fabric, simulator, options);
  FabricStorageReads reads(network, fabric, tier, reader_nodes, direction);
  reads.start(bytes_per_node);
  simulator.run();
  return reads.result();
}

std::optional<double> start_fabric_reads(const Scenario& scenario, const std::shared_ptr<const fabric::Fabric>& built,
                                         const Placement& placement, std::int64_t stage_gpus,
                                         engine::Simulator& simulator, std::unique_ptr<network::FlowModel>& network,
                                         std::unique_ptr<FabricStorageReads>& reads) {
  const fabric::StorageTierSpec& tier = *scenario.cluster.storage->find(scenario.data->tier);
  const std::vector<int> readers = reader_nodes_of(*built, placement, stage_gpus);
  const double bytes = remote_bytes_per_reader(scenario, readers.size());
  if (scenario.data->prefetch == 0) return idle_fabric_read(*built, tier, readers, bytes).read_s;
  network::FlowModelOptions options;
  options.extra_links = FabricStorageReads::links_needed(tier);
  // A flow model made by the caller already holds room for the reads' links (storage_links_needed).
  if (!network) network = std::make_unique<network::FlowModel>(*built, simulator, options);
  reads = std::make_unique<FabricStorageReads>(*network, *built, tier, readers);
  reads->start(bytes);
  return std::nullopt;
}

bool reads_on_compute_fabric(const Scenario& scenario) {
  if (!scenario.data || !scenario.cluster.storage) return false;
  const fabric::StorageTierSpec* tier = scenario.cluster.storage->find(scenario.data->tier);
  return tier != nullptr && tier->attach == fabric::StorageAttach::kComputeFabric;
}

std::vector<int> reader_nodes_of(const fabric::Fabric& fabric, const Placement& placement, std::int64_t stage_gpus) {
  std::vector<int> nodes;
  for (std::int64_t rank = 0; rank < stage_gpus; ++rank) {
    const int node = fabric.node_of(static_cast<fabric::GpuId>(placement.identity() ? rank : placement.gpu(rank)));
    if (std::find(nodes.begin(), nodes.end(), node) == nodes.end()) nodes.push_back(node);
  }
  return nodes;
}

double remote_bytes_per_reader(const Scenario& scenario, std::size_t readers) {
  const DataPipelineSpec& data = *scenario.data;
  const DataPipelineTiming closed = time_data_pipeline(data, scenario.cluster, scenario.gpus, scenario.split.pp,
                                                       scenario.split.global_batch, 0);
  const double hit = data.cache_tier.empty() ? 0.0 : data.cache_hit_rate;
  return closed.bytes_per_node * (1 - hit) * static_cast<double>(closed.reader_nodes) /
         static_cast<double>(std::max<std::size_t>(readers, 1));
}

}  // namespace ctwin::replay
