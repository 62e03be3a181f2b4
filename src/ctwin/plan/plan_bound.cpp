#include "ctwin/plan/plan_bound.hpp"

#include <limits>

#include "ctwin/core/error.hpp"
#include "ctwin/plan/plan.hpp"
#include "ctwin/replay/node_pool.hpp"
#include "ctwin/replay/step_bound.hpp"
#include "ctwin/replay/step_limits.hpp"
#include "ctwin/workload/flops.hpp"

namespace ctwin::api {

CandidateBound bound_candidate(const replay::Scenario& scenario, EvalContext& context, replay::LayerOpsCache* layers) {
  replay::check_step_within_limits(scenario);
  replay::StepOptions options;  // as evaluate_resolved sets them for the analytical network
  options.collective_cache = context.collectives(scenario.cluster_key, scenario.network);
  CandidateBound bound;
  bound.step_time = replay::step_time_lower_bound(scenario, options, layers);
  // replay::make_step_report's expressions, at the bound: IEEE division and multiplication are
  // monotone, so a smaller step time gives a value at least as large, bit for bit.
  const double step = bound.step_time.seconds();
  if (step <= 0) {
    bound.tokens_per_s = bound.mfu = std::numeric_limits<double>::infinity();
    return bound;
  }
  const double gpus = static_cast<double>(scenario.gpus);
  const auto flops = workload::step_flops(scenario.model, scenario.split);
  const compute::Dtype dtype = scenario.split.precision == workload::Precision::kFp8   ? compute::Dtype::kFp8
                               : scenario.split.precision == workload::Precision::kFp16 ? compute::Dtype::kFp16
                                                                                         : compute::Dtype::kBf16;
  bound.tokens_per_s = static_cast<double>(flops.tokens) / step;
  // A pool's MFU is over its groups' own peaks, as the report's (replay/step_report.cpp).
  bound.mfu = scenario.pool.groups.empty() ? flops.model.count() / (step * gpus * scenario.gpu.peak(dtype).per_second())
                                           : flops.model.count() / (step * replay::pool_peak(scenario, dtype));
  return bound;
}

ObjectiveBound bound_objective(const replay::Scenario& base, const workload::ParallelConfig& split,
                               PlanObjective objective, EvalContext& context, replay::LayerOpsCache* layers) {
  replay::Scenario s = base;
  s.split = split;
  s.network = network::ModelKind::kAnalytical;
  ObjectiveBound out;
  try {
    const CandidateBound b = bound_candidate(s, context, layers);
    out.best = objective == PlanObjective::kMfu ? b.mfu : b.tokens_per_s;
    // The report refuses an MFU above 1 (an impossible GPU profile): only the replay says which
    // candidates it refuses, so one whose bound allows it is replayed.
    out.replay = b.mfu > 1;
  } catch (const InputError& e) {
    out.invalid = e.what();
  }
  return out;
}

}  // namespace ctwin::api
