#include "ctwin/replay/checkpoint_step.hpp"

#include <algorithm>

#include "ctwin/core/error.hpp"

namespace ctwin::replay {
namespace {

const fabric::StorageTierSpec& checkpoint_tier_of(const Scenario& scenario) {
  const fabric::StorageTierSpec* tier = scenario.cluster.storage->find(scenario.checkpoint->tier);
  CTWIN_ASSERT(tier != nullptr && tier->shared(), "read_checkpoint checked the tier");
  return *tier;
}

std::vector<int> nodes_of_ranks(const fabric::Fabric& fabric, const Placement& placement,
                                const std::vector<std::int64_t>& ranks) {
  std::vector<int> nodes;
  for (const std::int64_t rank : ranks) {
    const int node = fabric.node_of(static_cast<fabric::GpuId>(placement.identity() ? rank : placement.gpu(rank)));
    if (std::find(nodes.begin(), nodes.end(), node) == nodes.end()) nodes.push_back(node);
  }
  return nodes;
}

}  // namespace

bool checkpoint_on_compute_fabric(const Scenario& scenario) {
  return scenario.checkpoint && checkpoint_tier_of(scenario).attach == fabric::StorageAttach::kComputeFabric;
}

std::vector<int> checkpoint_writer_nodes_of(const fabric::Fabric& fabric, const Placement& placement,
                                            const Scenario& scenario) {
  const auto& split = scenario.split;
  std::vector<std::int64_t> ranks;
  if (split.zero_stage() >= 1) {
    for (std::int64_t rank = 0; rank < scenario.gpus; ++rank) ranks.push_back(rank);
  } else {
    const std::int64_t stage = scenario.gpus / std::max<std::int64_t>(split.pp, 1);
    for (std::int64_t s = 0; s < split.pp; ++s) {
      for (std::int64_t r = 0; r < split.tp * split.cp; ++r) ranks.push_back(s * stage + r);
    }
  }
  return nodes_of_ranks(fabric, placement, ranks);
}

std::unique_ptr<network::FlowModel> storage_flow_model(const Scenario& scenario, const fabric::Fabric& fabric,
                                                       engine::Simulator& simulator) {
  network::FlowModelOptions options;
  if (reads_on_compute_fabric(scenario)) {
    options.extra_links += FabricStorageReads::links_needed(*scenario.cluster.storage->find(scenario.data->tier));
  }
  if (scenario.checkpoint) options.extra_links += FabricStorageReads::links_needed(checkpoint_tier_of(scenario));
  return std::make_unique<network::FlowModel>(fabric, simulator, options);
}

FabricCheckpointSave::FabricCheckpointSave(const Scenario& scenario, const fabric::Fabric& fabric,
                                           const Placement& placement, network::FlowModel& network)
    : writes_(network, fabric, checkpoint_tier_of(scenario), checkpoint_writer_nodes_of(fabric, placement, scenario),
              StorageDirection::kWrite) {
  const std::vector<int> writers = checkpoint_writer_nodes_of(fabric, placement, scenario);
  bytes_per_writer_ = time_checkpoint(scenario, 1).size.bytes / static_cast<double>(writers.size());
}

void FabricCheckpointSave::start() { writes_.start(bytes_per_writer_); }

CheckpointTiming simulate_checkpoint(const Scenario& scenario, const StepOptions& options,
                                     const std::shared_ptr<const fabric::Fabric>& fabric, const Placement& placement,
                                     double step_s) {
  CTWIN_ASSERT(checkpoint_on_compute_fabric(scenario) && !options.checkpoint_save_in_step, "a step's own checkpoint");
  CheckpointFabricRun run;
  FabricReadResult writes;
  if (scenario.checkpoint->mode == CheckpointMode::kBlocking) {
    const std::vector<int> writers = checkpoint_writer_nodes_of(*fabric, placement, scenario);
    const double bytes = time_checkpoint(scenario, step_s).size.bytes / static_cast<double>(writers.size());
    writes = idle_fabric_read(*fabric, checkpoint_tier_of(scenario), writers, bytes, StorageDirection::kWrite);
  } else {
    StepOptions saving = options;
    saving.checkpoint_save_in_step = true;
    saving.fabric = fabric;
    const SimulatedStep step = simulate_step(scenario, saving);
    CTWIN_ASSERT(step.checkpoint_save.has_value(), "the saving step ran the save");
    writes = *step.checkpoint_save;
    run.saving_step_s = step.report.step_time_s;
  }
  run.write_s = writes.read_s;
  run.requested = writes.requested;
  run.delivered = writes.delivered;
  run.flows = writes.flows;
  return time_checkpoint(scenario, step_s, run);
}

}  // namespace ctwin::replay
