#include "ctwin/replay/checkpoint_save.hpp"

#include <algorithm>
#include <cmath>

#include "ctwin/core/error.hpp"
#include "ctwin/core/int_math.hpp"
#include "ctwin/workload/parameter_count.hpp"

namespace ctwin::replay {
namespace {

// A write on the fabric takes its path's latency (microseconds) on top of the closed form; the
// fabric is named the limit only when sharing slowed it by more than this share.
constexpr double kCheckpointFabricLimitShare = 1e-3;

}  // namespace

double storage_transfer_s(double bytes, long long nodes, double aggregate_Bps, double node_path_Bps) {
  CTWIN_ASSERT(nodes > 0 && aggregate_Bps > 0 && node_path_Bps > 0, "a transfer has nodes and rates");
  return std::max(bytes / aggregate_Bps, bytes / static_cast<double>(nodes) / node_path_Bps);
}

long long checkpoint_writer_nodes(const workload::ParallelConfig& split, long long job_nodes, long long gpus_per_node) {
  CTWIN_ASSERT(job_nodes > 0, "a job has at least one node");
  if (split.zero_stage() >= 1) return job_nodes;
  const long long replica_gpus = split.tp * split.pp * split.cp;
  return std::min<long long>(job_nodes, ceil_div(replica_gpus, std::max(1LL, gpus_per_node)));
}

CheckpointSize checkpoint_size(const Scenario& scenario, long long job_nodes, double bytes_per_parameter) {
  CTWIN_ASSERT(job_nodes > 0, "a job has at least one node");
  CheckpointSize s;
  s.parameters = static_cast<double>(workload::count_parameters(scenario.model).total);
  s.bytes_per_parameter = bytes_per_parameter;
  s.bytes = s.parameters * bytes_per_parameter;
  s.writer_nodes = checkpoint_writer_nodes(scenario.split, job_nodes, std::max(1, scenario.cluster.server.gpus));
  s.bytes_per_writer = s.bytes / static_cast<double>(s.writer_nodes);
  return s;
}

CheckpointTiming time_checkpoint(const Scenario& scenario, double step_s, const std::optional<CheckpointFabricRun>& fabric) {
  CTWIN_ASSERT(scenario.checkpoint.has_value(), "a scenario with a checkpoint");
  const CheckpointSpec& spec = *scenario.checkpoint;
  const fabric::StorageTierSpec* tier = scenario.cluster.storage->find(spec.tier);
  CTWIN_ASSERT(tier != nullptr && tier->shared(), "read_checkpoint checked the tier");
  const long long per_node = std::max(1, scenario.cluster.server.gpus);
  const long long job_nodes = std::max<long long>(1, ceil_div(static_cast<long long>(scenario.gpus), per_node));
  CheckpointTiming t;
  t.size = checkpoint_size(scenario, job_nodes, spec.bytes_per_parameter.value_or(checkpoint_bytes_per_parameter(true)));
  const CheckpointSize& size = t.size;
  t.tier_write_Bps = static_cast<double>(tier->servers) * tier->write_per_server.bytes_per_second();
  t.node_path_Bps = fabric::storage_node_path_Bps(scenario.cluster, *tier);
  t.closed_form_save_s = storage_transfer_s(size.bytes, size.writer_nodes, t.tier_write_Bps, t.node_path_Bps);
  t.load_s = storage_transfer_s(size.bytes, job_nodes, tier->aggregate_read_Bps(), t.node_path_Bps);
  t.fabric = fabric;
  t.save_s = fabric ? fabric->write_s : t.closed_form_save_s;
  const bool tier_bound = size.bytes / t.tier_write_Bps >= size.bytes_per_writer / t.node_path_Bps;
  const bool shared_links = fabric && t.save_s > t.closed_form_save_s * (1 + kCheckpointFabricLimitShare);
  t.limit = tier_bound && !shared_links ? "tier" : "fabric";
  const auto every = static_cast<double>(spec.every_steps);
  if (spec.mode == CheckpointMode::kBlocking) {
    t.stall_s = t.save_s;
  } else {
    t.copy_s = size.bytes_per_writer / static_cast<double>(per_node) / spec.host_copy_per_gpu_Bps;
    t.stall_s = t.copy_s + std::max(0.0, t.save_s - every * step_s);
    if (fabric) {
      // The simulated step saw the write's first step; a longer write slows as many steps alike.
      const double slowdown = std::max(0.0, fabric->saving_step_s - step_s);
      const double steps = std::min(every, std::max(1.0, std::ceil(t.save_s / fabric->saving_step_s)));
      t.contention_s = slowdown * steps;
    }
  }
  t.amortised_s = (t.stall_s + t.contention_s) / every;
  return t;
}

}  // namespace ctwin::replay
