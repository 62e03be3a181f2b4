#include "ctwin/replay/training_step.hpp"

#include <map>
#include <memory>
#include <string>

#include "ctwin/core/error.hpp"
#include "ctwin/replay/checkpoint_step.hpp"
#include "ctwin/replay/comm_groups.hpp"
#include "ctwin/replay/dp_shares.hpp"
#include "ctwin/replay/node_pool.hpp"
#include "ctwin/replay/schedule.hpp"
#include "ctwin/replay/shared_fabric.hpp"
#include "ctwin/replay/storage_reads.hpp"

namespace ctwin::replay {

PreparedStep prepare_step(const Scenario& scenario, const StepOptions& options) {
  if (!scenario.calibration.empty() && !scenario.calibrated) {
    throw InputError(scenario.source, "/calibration",
                     "this command does not apply calibrations; ctwin run, scale and sweep do (api::evaluate)");
  }
  PreparedStep prepared;
  prepared.comm = std::make_unique<CollectiveTimes>(scenario.cluster, scenario.network, options.free_communication,
                                                    options.collective_cache, scenario.tuning);
  CollectiveTimes& comm = *prepared.comm;
  prepared.placement = place_ranks(scenario);
  // Stages are tp·cp·dp consecutive ranks (op_graph.cpp); the groups' members per node follow
  // from where the placement puts them.
  comm.place(prepared.placement, scenario.split.tp * scenario.split.cp * scenario.split.data_parallel(scenario.gpus));
  prepared.work = build_step_work(scenario, comm);
  apply_pool(prepared.work, scenario, comm, &prepared.pool);
  std::map<double, StepWork> slow_hbm;  // the work again at each degraded HBM bandwidth
  for (const auto& s : options.slowdowns) {
    if (s.hbm == 1 || slow_hbm.contains(s.hbm)) continue;
    if (!scenario.pool.groups.empty()) {
      throw InputError("--degrade", "", "hbm: slowdowns are not modelled on a heterogeneous pool (gpu: ones are)");
    }
    Scenario slowed = scenario;
    slowed.gpu.hbm_bandwidth = slowed.gpu.hbm_bandwidth * s.hbm;
    slow_hbm.emplace(s.hbm, build_step_work(slowed, comm));
  }
  apply_slowdowns(prepared.work, options.slowdowns, slow_hbm);
  prepared.order = pipeline_order(scenario.split.schedule, static_cast<int>(scenario.split.pp),
                                  static_cast<int>(scenario.split.vpp), static_cast<int>(prepared.work.micro_batches));
  return prepared;
}

SimulatedStep simulate_step(const Scenario& scenario, const StepOptions& options) {
  // Replicas on kinds of different speed with their own micro-batch counts: a replay per class.
  if (const DpShares shares = dp_speed_shares(scenario); !shares.classes.empty()) {
    return simulate_dp_shares(scenario, options, shares);
  }
  PreparedStep prepared = prepare_step(scenario, options);
  CollectiveTimes& comm = *prepared.comm;
  SimulatedStep step;
  step.placement = std::move(prepared.placement);
  step.work = std::move(prepared.work);
  const auto& order = prepared.order;
  // Every rank keeps its own timeline and op state: beyond a few thousand GPUs that is minutes and
  // gigabytes for what the symmetry reduction gives exactly.
  constexpr std::int64_t kAllRanksLimit = 4096;
  if (options.all_ranks && scenario.gpus > kAllRanksLimit) {
    throw InputError("--all-ranks", "", "simulates every rank, at most " + std::to_string(kAllRanksLimit) +
                                            " GPUs (the scenario has " + std::to_string(scenario.gpus) +
                                            "); without it one rank per stage stands for the rest");
  }
  if (options.all_ranks && options.flow_sample != FlowSample::kFull) {
    throw InputError("--flow-sample", "", "samples the one-rank-per-stage replay; --all-ranks replays every rank");
  }
  ReplayOptions replay_options;
  replay_options.pp_overlap = scenario.overlap.pp_p2p;
  replay_options.all_ranks = options.all_ranks;
  const bool shared = !options.free_communication &&
                      (options.comm == CommModel::kShared || (options.comm == CommModel::kAuto && scenario.network == network::ModelKind::kFlow));
  step.shared_fabric = shared;
  check_group_servers_priced(scenario, shared, false);
  replay_options.repeat_lists = options.repeat_lists && !shared && !options.all_ranks;
  engine::Simulator simulator;
  // Declared before the executor, which moves its traffic on the same flow model: destroyed after it.
  std::unique_ptr<network::FlowModel> storage_network;
  std::unique_ptr<FabricStorageReads> storage_reads;
  std::optional<double> fabric_read_s;
  std::unique_ptr<FabricCheckpointSave> checkpoint_save;
  std::shared_ptr<const fabric::Fabric> storage_fabric;  // the build, kept for the checkpoint's save
  std::unique_ptr<CommExecutor> executor;
  const SharedFabricExecutor* spine_counter = nullptr;
  if (shared) {
    std::shared_ptr<const fabric::Fabric> built = options.fabric;
    const std::int64_t build_gpus = step.placement.cluster_gpus();
    if (!built) built = std::make_shared<const fabric::Fabric>(pool_build(scenario), static_cast<int>(build_gpus));
    CTWIN_ASSERT(built->gpus() == build_gpus, "a step's shared fabric is a build of the GPUs its placement uses");
    // A sample stands for replicas placed alike in whole nodes: with ranks moved off the
    // contiguous layout that no longer holds, so the whole stage goes on the fabric.
    const std::int64_t sample = step.placement.identity()
                                    ? sampled_stage_gpus(options.flow_sample, scenario.cluster, step.work.stage_gpus,
                                                         scenario.split.tp * scenario.split.cp)
                                    : step.work.stage_gpus;
    // Every storage link is added before the first flow starts: the save's, then the reads'.
    if (options.checkpoint_save_in_step) {
      storage_network = storage_flow_model(scenario, *built, simulator);
      checkpoint_save = std::make_unique<FabricCheckpointSave>(scenario, *built, step.placement, *storage_network);
    }
    if (scenario.network == network::ModelKind::kFlow && reads_on_compute_fabric(scenario)) {
      fabric_read_s = start_fabric_reads(scenario, built, step.placement, step.work.stage_gpus, simulator,
                                         storage_network, storage_reads);
    }
    if (checkpoint_save) checkpoint_save->start();
    storage_fabric = built;
    auto shared_executor = std::make_unique<SharedFabricExecutor>(std::move(built), step.work.stage_gpus, simulator, comm,
                                                                  options.healthy_fabric, sample, &step.placement,
                                                                  storage_network.get());
    shared_executor->plan_stages(prepared.pool.stage_plans);
    if (step.placement.footprint() != nullptr) shared_executor->count_cross_spine();
    spine_counter = shared_executor.get();
    executor = std::move(shared_executor);
    if (sample < step.work.stage_gpus) {
      step.flow_sample_gpus = sample;
      step.flow_sample = options.flow_sample;
    }
  } else {
    // Contiguous ranks whose stages start on node boundaries (or pack whole into nodes) lay every
    // group of a shape out alike: each op's own time is every group's. Otherwise each group is
    // priced where it sits (a group straddling two NVLink domains pays the network).
    const std::int64_t node = scenario.cluster.server.gpus;
    const std::int64_t stage = step.work.stage_gpus;
    // On a multi-site build groups and sends are priced on the sites they span, stage by stage.
    const bool alike = step.placement.identity() && (stage % node == 0 || node % stage == 0) && !scenario.cluster.fabric.sites;
    check_group_servers_priced(scenario, false, !alike);
    executor = std::make_unique<IsolatedExecutor>(simulator, alike ? nullptr : &comm);
  }
  step.replay = replay_step(step.work, order, replay_options, simulator, *executor);
  if (storage_reads) fabric_read_s = storage_reads->result().read_s;
  step.report = make_step_report(scenario, step.replay, fabric_read_s);
  if (checkpoint_save) step.checkpoint_save = checkpoint_save->result();
  if (storage_fabric && !options.checkpoint_save_in_step && scenario.network == network::ModelKind::kFlow &&
      checkpoint_on_compute_fabric(scenario)) {
    step.report.checkpoint = simulate_checkpoint(scenario, options, storage_fabric, step.placement, step.report.step_time_s);
  }
  if (spine_counter != nullptr && step.placement.footprint() != nullptr) {
    step.cross_spine_bytes = spine_counter->cross_spine_bytes();
    step.fabric_bytes = spine_counter->stats().bytes_started;
  }
  return step;
}

}  // namespace ctwin::replay
