#pragma once
// What a scenario's checkpoint costs the step (docs/io.md#checkpoints-in-the-step), and the one
// closed form every checkpoint figure of ctwin comes from (goodput's too,
// analysis/checkpoint_model.hpp).
//
//   bytes        = parameters × bytes per parameter
//   writers      = every node of the job with ZeRO ≥ 1 (each data-parallel rank holds a shard of
//                  the optimizer), else the first replica's ceil(tp·pp·cp / gpus per node) nodes
//   save         = max(bytes / (servers × write per server), bytes per writer / node path)
//   load         = max(bytes / tier read aggregate, bytes per job node / node path)
//   blocking:  the saving step stops for the save: stall = save
//   async:     it stops for the device→host copy, copy = bytes per writer / GPUs per node / host
//              copy rate of a GPU; the write then overlaps the next steps, and the next save
//              waits for it when it outlasts them: stall = copy + max(0, save − every · step)
// On `flow` with the tier on the compute fabric the save is simulated instead (checkpoint_step.hpp):
// blocking alone on the fabric, async beside the step's collectives, and the step's slowdown
// from sharing links with the write is `contention_s`.

#include <optional>
#include <string>

#include "ctwin/core/units.hpp"
#include "ctwin/replay/scenario.hpp"

namespace ctwin::replay {

/// max(bytes / aggregate, bytes / nodes / per-node path): `nodes` moving `bytes` between them and
/// a storage tier of `aggregate_Bps`, each through a path of `node_path_Bps`.
[[nodiscard]] double storage_transfer_s(double bytes, long long nodes, double aggregate_Bps, double node_path_Bps);

/// The nodes that write a checkpoint of `split` on a job of `job_nodes` (see the file comment).
[[nodiscard]] long long checkpoint_writer_nodes(const workload::ParallelConfig& split, long long job_nodes,
                                                long long gpus_per_node);

/// A save simulated on the flow fabric (checkpoint_step.hpp).
struct CheckpointFabricRun {
  double write_s = 0;        ///< from the write's start to its last byte on the tier
  double saving_step_s = 0;  ///< async: the step with the write beside it (0 when blocking)
  Bytes requested, delivered;
  std::size_t flows = 0;
};

/// What a checkpoint holds and who writes it: the first two lines of the closed form above.
struct CheckpointSize {
  double parameters = 0;
  double bytes_per_parameter = 0;
  double bytes = 0;
  long long writer_nodes = 0;
  double bytes_per_writer = 0;
};

/// The checkpoint of `scenario`'s model at `bytes_per_parameter`, written by a job of `job_nodes` nodes.
[[nodiscard]] CheckpointSize checkpoint_size(const Scenario& scenario, long long job_nodes, double bytes_per_parameter);

struct CheckpointTiming {
  CheckpointSize size;
  double tier_write_Bps = 0;  ///< servers × write per server
  double node_path_Bps = 0;   ///< a node's path to the tier
  double closed_form_save_s = 0;
  double save_s = 0;          ///< the write, simulated where it ran on the fabric
  double copy_s = 0;          ///< async: device→host, the part that blocks
  double stall_s = 0;         ///< the job stopped per save
  double contention_s = 0;    ///< async on flow: what sharing links with the write added to the steps
  double amortised_s = 0;     ///< (stall + contention) / every_steps: added to every step on average
  double load_s = 0;          ///< reading it back at a restart, closed form
  std::string limit;          ///< "tier" (its write aggregate) or "fabric" (the node's path or shared links)
  std::optional<CheckpointFabricRun> fabric;
};

/// The checkpoint of `scenario` (which has one) against its step of `step_s` seconds; `fabric`:
/// the save as simulated, none for the closed form.
[[nodiscard]] CheckpointTiming time_checkpoint(const Scenario& scenario, double step_s,
                                               const std::optional<CheckpointFabricRun>& fabric = std::nullopt);

}  // namespace ctwin::replay
