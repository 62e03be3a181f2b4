#pragma once
// A scenario's checkpoint on the `flow` fabric, when its tier attaches to the compute fabric
// (docs/io.md#checkpoints-in-the-step). The save is the loader's reads the other way
// (storage_reads.hpp): every writer node's bytes split over its NICs and the tier's servers, each
// part a flow from the GPU behind the NIC up through the leaf and the top switch into a server's
// port of `write_per_server`.
//
// Writers: with ZeRO ≥ 1 every node of the job (each data-parallel rank writes its optimizer
// shard, as Megatron-LM's distributed checkpoint does), else the nodes holding data-parallel rank
// 0's ranks (ranks are laid out tp, cp, dp within a stage: the first tp·cp of each stage).
// Blocking: the save runs alone on the fabric (the job waits for it). Async: the step is simulated
// again with the write started at its start, beside its collectives; the difference between the
// two steps is the contention the write causes.

#include <memory>
#include <vector>

#include "ctwin/fabric/fabric.hpp"
#include "ctwin/network/flow_model.hpp"
#include "ctwin/replay/checkpoint_save.hpp"
#include "ctwin/replay/placement.hpp"
#include "ctwin/replay/storage_reads.hpp"
#include "ctwin/replay/training_step.hpp"

namespace ctwin::replay {

/// Does this scenario save over the compute fabric, so that `flow` simulates its checkpoint?
[[nodiscard]] bool checkpoint_on_compute_fabric(const Scenario& scenario);

/// The writer nodes of the scenario's checkpoint on `fabric` (see the file comment), in rank order.
[[nodiscard]] std::vector<int> checkpoint_writer_nodes_of(const fabric::Fabric& fabric, const Placement& placement,
                                                          const Scenario& scenario);

/// A flow model on `fabric` with room for the links of the loader's reads and the checkpoint's writes.
[[nodiscard]] std::unique_ptr<network::FlowModel> storage_flow_model(const Scenario& scenario,
                                                                     const fabric::Fabric& fabric,
                                                                     engine::Simulator& simulator);

/// One save's writes on a flow model: the tier's links are added when made, the flows start with start().
class FabricCheckpointSave {
 public:
  FabricCheckpointSave(const Scenario& scenario, const fabric::Fabric& fabric, const Placement& placement,
                       network::FlowModel& network);
  void start();
  [[nodiscard]] FabricReadResult result() const { return writes_.result(); }

 private:
  double bytes_per_writer_ = 0;
  FabricStorageReads writes_;
};

/// The checkpoint of a `flow` step of `step_s` seconds on `fabric` (checkpoint_on_compute_fabric),
/// simulated as the file comment says; `options` are the step's.
[[nodiscard]] CheckpointTiming simulate_checkpoint(const Scenario& scenario, const StepOptions& options,
                                                   const std::shared_ptr<const fabric::Fabric>& fabric,
                                                   const Placement& placement, double step_s);

}  // namespace ctwin::replay
