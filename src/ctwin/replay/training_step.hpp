#pragma once
// One training step of a scenario, end to end: collective times, operation graph, pipeline
// order, replay and report.

#include <memory>
#include <optional>

#include "ctwin/replay/comm_groups.hpp"
#include <vector>

#include "ctwin/replay/degrade.hpp"
#include "ctwin/replay/flow_sample.hpp"
#include "ctwin/replay/node_pool.hpp"
#include "ctwin/replay/replay.hpp"
#include "ctwin/replay/schedule.hpp"
#include "ctwin/replay/scenario.hpp"
#include "ctwin/replay/storage_reads.hpp"
#include "ctwin/replay/step_report.hpp"

namespace ctwin::replay {

/// How communication ops take time during the replay (comm_executor.hpp).
enum class CommModel {
  kAuto,      ///< shared with the `flow` network, isolated with `analytical` (which has no contention)
  kIsolated,  ///< each op its predicted time, as if alone on the fabric
  kShared,    ///< every op's traffic on one flow simulation of the cluster
};

struct StepOptions {
  bool free_communication = false;  ///< every collective and send takes no time (oracle tests)
  CommModel comm = CommModel::kAuto;
  bool all_ranks = false;  ///< simulate every rank, not one per pipeline stage
  /// Predictions already made on the scenario's cluster and network (a sweep's shared cache);
  /// the step makes its own when null.
  std::shared_ptr<CollectiveCache> collective_cache;
  /// The scenario's whole build for the shared-fabric replay, already built; built here when null.
  std::shared_ptr<const fabric::Fabric> fabric;
  std::vector<GpuSlowdown> slowdowns{};  ///< degraded GPUs and HBM (degrade.hpp)
  /// Repeated chunk passes replayed by shifting the first (ReplayOptions::repeat_lists; isolated
  /// communication only, else ignored): the same report, a timeline in another tie order.
  bool repeat_lists = false;
  /// When `fabric` has degraded parts (a NIC, a cable, a leaf's uplinks): the healthy build,
  /// on which each op's traffic is paced to its predicted time, so that the degraded parts slow
  /// the traffic that crosses them and nothing else. Null: `fabric` is healthy.
  std::shared_ptr<const fabric::Fabric> healthy_fabric;
  /// Shared fabric only: which replicas' traffic is put on it (flow_sample.hpp; kFull is exact).
  FlowSample flow_sample = FlowSample::kFull;
  /// Shared fabric only: the scenario's checkpoint writes start with the step and share its
  /// links (the saving step of an async checkpoint, checkpoint_step.hpp).
  bool checkpoint_save_in_step = false;
};

struct SimulatedStep {
  StepWork work;
  ReplayResult replay;
  StepReport report;
  bool shared_fabric = false;  ///< communication replayed on one flow simulation of the cluster
  /// Shared fabric only: stage-local ranks whose narrow groups were put on it (flow_sample.hpp);
  /// 0 when every replica's were (the exact replay).
  std::int64_t flow_sample_gpus = 0;
  FlowSample flow_sample = FlowSample::kFull;  ///< the sample asked for (kFull when it was not applied)
  Placement placement;  ///< where the ranks sat (placement.hpp)
  /// Shared fabric with a node policy only: bytes put on routes through a spine, and all bytes
  /// put on the fabric (paced, shared_fabric.hpp), over the step.
  std::optional<Bytes> cross_spine_bytes;
  Bytes fabric_bytes;
  std::optional<FabricReadResult> checkpoint_save;  ///< StepOptions::checkpoint_save_in_step: the writes
};

/// What a step's replay needs besides an executor: its collectives' times and plans, where its
/// ranks sit, its work and its pipeline order (the first half of simulate_step; several jobs
/// replayed on one fabric, cluster_replay.hpp, take it too).
struct PreparedStep {
  std::unique_ptr<CollectiveTimes> comm;  ///< the work's ops and a shared-fabric executor refer to it
  PoolComm pool;  ///< a pool's groups' own servers' pricing, for the executor too
  Placement placement;
  StepWork work;
  std::vector<std::vector<PipelineTask>> order;
};

/// InputError for what the slice does not model, as simulate_step.
[[nodiscard]] PreparedStep prepare_step(const Scenario& scenario, const StepOptions& options = {});

/// InputError for what the slice does not model (see build_step_work).
[[nodiscard]] SimulatedStep simulate_step(const Scenario& scenario, const StepOptions& options = {});

}  // namespace ctwin::replay
