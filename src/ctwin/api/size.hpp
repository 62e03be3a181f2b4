#pragma once
// `ctwin size`: what each build option of a cluster costs, draws and delivers. For every
// combination of --vary values: the fabric's counts, the bill of materials (capex split into
// servers, switches, optics and cables; IT power), bisection bandwidth, all_reduce and
// alltoall bus bandwidth at full scale, and for each workload its step time, MFU and linearity
// from 1/8 of the build to all of it, the global batch growing with the data-parallel width.
// Through one EvalContext, options in parallel, results in grid order whatever the jobs.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ctwin/api/evaluate.hpp"
#include "ctwin/api/sweep.hpp"
#include "ctwin/fabric/bill_of_materials.hpp"
#include "ctwin/fabric/build_checks.hpp"

namespace ctwin::api {

struct SizeQuery {
  std::string cluster;                  ///< a topology file
  std::int64_t gpus = 0;                ///< the full build
  std::vector<Override> changes;        ///< --set, applied to every option
  std::vector<GridAxis> vary;           ///< topology fields ("fabric.oversubscription.leaf=1,2,4")
  std::vector<std::string> workloads;   ///< scenario files, run on each option's cluster
  std::string parts;                    ///< a user parts file replacing catalog entries; empty for none
  fabric::FloorPlan floor;
  bool collectives = true;              ///< predict all_reduce and alltoall at full scale
  int scales = 4;                       ///< workload sizes: gpus/2^(scales-1) ... gpus
  unsigned jobs = 1;
  std::function<void(std::size_t, std::size_t)> progress;  ///< options done, options in all
};

struct SizeWorkloadPoint {
  std::int64_t gpus = 0;
  std::int64_t global_batch = 0;
  std::string invalid;
  double step_time_s = 0;
  double tokens_per_s = 0;
  double mfu = 0;
  double model_tflops_per_gpu = 0;
  double linearity = 0;
};

struct SizeWorkload {
  std::string scenario;
  std::string model;
  std::vector<SizeWorkloadPoint> points;  ///< ascending GPUs; the last is the full build
};

struct SizeOption {
  std::vector<std::string> values;  ///< one per --vary axis, as given
  std::string invalid;              ///< why this combination cannot be built; empty when it was
  fabric::FabricSummary summary;
  fabric::BillOfMaterials bill;
  std::vector<fabric::BuildWarning> warnings;
  std::optional<double> all_reduce_busbw_GBps;  ///< 1 GiB at full scale
  /// 1 GiB alltoall on the first alltoall_gpus GPUs: the full build up to 2,048 GPUs, where
  /// simulating every pair stops (collectives/plan.cpp)
  std::optional<double> alltoall_busbw_GBps;
  std::int64_t alltoall_gpus = 0;
  std::vector<SizeWorkload> workloads;
  bool pareto = false;  ///< no other option costs as little and delivers as much (first workload's tokens/s)
  std::optional<double> cost_per_pflops;  ///< capex / delivered model PFLOP/s of the first workload at full scale
};

struct SizeResult {
  std::string cluster;
  std::int64_t gpus = 0;
  std::string currency;
  std::vector<GridAxis> axes;
  std::vector<SizeOption> options;
  std::vector<std::string> catalog_files;
};

/// InputError for bad input: an unknown cluster or field in --set/--vary (naming it), a part
/// missing from the catalog, a price without its currency, a workload that cannot be read.
[[nodiscard]] SizeResult evaluate_size(const SizeQuery& query, EvalContext& context);

[[nodiscard]] nlohmann::json size_json(const SizeResult& result);

}  // namespace ctwin::api
