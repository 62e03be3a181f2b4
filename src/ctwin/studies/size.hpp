#pragma once
// `ctwin size`: what each build option of a cluster costs, draws and delivers. For every
// combination of --vary values: the fabric's counts, the bill of materials (capex split into
// servers, switches, optics and cables; IT power), bisection bandwidth, all_reduce and
// alltoall bus bandwidth at full scale, and for each workload its step time, MFU and linearity
// from 1/8 of the build to all of it, the global batch growing with the data-parallel width.
// Workloads run on `flow` with every op's traffic on one shared fabric, so that the fabric being
// priced is the fabric being simulated: on `analytical` each collective runs alone and twelve
// fabric options deliver the same tokens/s to 2e-6 (issue 35). Options whose throughput differs by
// less than the model resolves are ties (studies/size_front.hpp). Through one EvalContext, options in
// parallel, results in grid order whatever the jobs.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ctwin/analysis/error_bands.hpp"
#include "ctwin/api/evaluate.hpp"
#include "ctwin/studies/sweep.hpp"
#include "ctwin/fabric/bill_of_materials.hpp"
#include "ctwin/fabric/build_checks.hpp"
#include "ctwin/network/network_model.hpp"
#include "ctwin/replay/flow_sample.hpp"
#include "ctwin/replay/step_figures.hpp"

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
  network::ModelKind network = network::ModelKind::kFlow;  ///< what the workloads run on
  /// On flow: one scalable unit of each stage stands for the others where the fabric allows
  /// (replay/flow_sample.hpp), 0.4–1.0 % short of the full replay on the 10k example (docs/size.md).
  replay::FlowSample flow_sample = replay::FlowSample::kScalableUnit;
  /// Relative throughput difference below which two options are ties; by default the network
  /// model's resolution (default_tie_tolerance).
  std::optional<double> tie_tolerance;
  /// ECMP hash seeds (fabric.ecmp_seed 0, 1, ...) the first workload replays at full scale on each
  /// option; by default 4 on flow and 1 on analytical, which routes no flows. With more than one,
  /// options are ranked on their mean over the seeds, and two options whose ranges over the seeds
  /// overlap tie (unless a tolerance is given), so that no option wins on hash luck.
  std::optional<int> ecmp_seeds;
  /// Power usage effectiveness (the facility's energy over its IT equipment's, seed 003): with
  /// one, each option's facility power is its IT power times it.
  std::optional<double> pue;
  unsigned jobs = 1;
  std::function<void(std::size_t, std::size_t)> progress;  ///< options done, options in all
};

/// One scale of a workload: its step's figures (kSizePointFigures are printed), 0 when invalid.
struct SizeWorkloadPoint : replay::StepFigures {
  std::int64_t gpus = 0;
  std::int64_t global_batch = 0;
  std::string invalid;
  double linearity = 0;
};

/// The figures `size` prints for each workload point.
inline constexpr replay::FigureSet kSizePointFigures{replay::Figure::kStepTime, replay::Figure::kTokensPerS,
                                                     replay::Figure::kMfu, replay::Figure::kModelTflopsPerGpu};

struct SizeWorkload {
  std::string scenario;
  std::string model;
  std::vector<SizeWorkloadPoint> points;  ///< ascending GPUs; the last is the full build
  analysis::ErrorBandKey error_band;      ///< the class of its predictions (analysis/error_bands.hpp)
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
  /// Options of one group deliver the first workload's full-scale tokens/s within the tie
  /// tolerance; -1 when the option has no such figure.
  int tie_group = -1;
  bool pareto = false;  ///< no other option costs no more and delivers more beyond the tolerance, or the same for less
  std::optional<double> cost_per_pflops;  ///< capex / delivered model PFLOP/s of the first workload at full scale
  /// The other options (indices) whose bills need at least as many of every part: this one costs
  /// no more than each of them at any prices (studies/size_parts.hpp).
  std::vector<std::size_t> costs_no_more_than;
  /// Model FLOP/s the first workload delivers at full scale per watt of the build's IT power
  /// (an upper bound where a part's power is unknown, bill.fully_powered()); none without a workload.
  std::optional<double> gflops_per_watt;
  std::optional<double> facility_power_kW;  ///< IT power × SizeQuery::pue, when one was given
  /// The first workload's full-scale tokens/s with ECMP seeds 0, 1, ... (SizeQuery::ecmp_seeds > 1).
  std::vector<double> tokens_per_s_by_seed;
  /// (max - min) / max of tokens_per_s_by_seed: what hash luck alone moves this option; 0 with one seed.
  [[nodiscard]] double hash_spread() const;
  /// What the tie groups and the front compare: the mean over the seeds, or seed 0's figure alone.
  [[nodiscard]] double ranked_tokens_per_s() const;
};

struct SizeResult {
  std::string cluster;
  std::int64_t gpus = 0;
  std::string currency;
  std::vector<GridAxis> axes;
  network::ModelKind network = network::ModelKind::kFlow;
  replay::FlowSample flow_sample = replay::FlowSample::kFull;  ///< as asked; a fabric that cannot be sampled runs in full
  /// Below it options tie. With measured hash spreads (ecmp_seeds > 1), the floor: two options
  /// further apart also tie when their ranges over the seeds overlap.
  double tie_tolerance = 0;
  bool tie_tolerance_given = false;  ///< the user's tolerance, which the spreads do not widen
  int ecmp_seeds = 1;
  std::optional<double> pue;
  std::vector<SizeOption> options;
  std::vector<std::string> catalog_files;
};

/// InputError for bad input: an unknown cluster or field in --set/--vary (naming it), a part
/// missing from the catalog, a price without its currency, a workload that cannot be read.
/// What the network model resolves between two fabric options when the hash spread is not
/// measured (one ECMP seed). On flow, the larger of what the sample's error moves between options
/// (0.6 % with `su`, 0.1 % in full) and what ECMP hash luck alone moves a step, measured over seeds
/// on the 10k example (docs/size.md, "ECMP hash luck"); on analytical, which prices each
/// collective alone, 1 %: fabric options then differ by noise.
[[nodiscard]] double default_tie_tolerance(network::ModelKind network, replay::FlowSample sample);

[[nodiscard]] SizeResult evaluate_size(const SizeQuery& query, EvalContext& context);

[[nodiscard]] nlohmann::json size_json(const SizeResult& result);

}  // namespace ctwin::api
