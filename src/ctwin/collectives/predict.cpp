#include "ctwin/collectives/predict.hpp"

#include <cmath>
#include <cstdio>

#include <memory>
#include <optional>

#include "ctwin/collectives/plan_timing.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/core/limits.hpp"
#include "ctwin/core/progress.hpp"

namespace ctwin::collectives {
namespace {

// nccl-tests rounds sizes to whole elements per rank for the ops that split the buffer.
Bytes rounded_size(Op op, Bytes size, int ranks, int element_bytes) {
  const bool split = op == Op::kAllGather || op == Op::kReduceScatter || op == Op::kAlltoall;
  const std::int64_t unit = split ? static_cast<std::int64_t>(ranks) * element_bytes : element_bytes;
  return Bytes(size.count() / unit * unit);
}

struct Candidate {
  Plan plan;
  std::unique_ptr<PlanProfile> profile;
};

}  // namespace

std::vector<Bytes> size_sweep(Bytes begin, Bytes end, double factor) {
  if (begin <= Bytes(0)) throw InputError("--begin", "", "must be positive");
  if (end < begin) throw InputError("--end", "", "must not be below --begin");
  if (!(factor > 1)) throw InputError("--factor", "", "must be greater than 1");
  if (const auto problem = limits::message_problem(end)) throw InputError("--end", "", *problem);
  // Counted before the loop: -f 1.0000001 from 8 B to 8 GiB would be 2e8 rows.
  const double rows = std::log(static_cast<double>(end.count()) / static_cast<double>(begin.count())) / std::log(factor) + 1;
  if (!(rows <= static_cast<double>(limits::kMaxSweepRows))) {
    char text[160];
    std::snprintf(text, sizeof text, "a factor of %.10g from --begin to --end gives %.4g sizes, more than 4096: use a "
                  "larger factor", factor, rows);
    throw InputError("--factor", "", text);
  }
  std::vector<Bytes> sizes;
  for (double size = static_cast<double>(begin.count()); size <= static_cast<double>(end.count()) * (1 + 1e-12);
       size *= factor) {
    sizes.emplace_back(static_cast<std::int64_t>(size));
  }
  return sizes;
}

SimTime plan_time(const Plan& plan, const fabric::Fabric& fabric, Bytes size, int element_bytes,
                  network::ModelKind network, const CollectiveTuning& tuning) {
  const Bytes rounded = rounded_size(plan.op, size, plan.ranks, element_bytes);
  const PlanProfile profile(plan, fabric, network);
  std::optional<SimTime> best;
  for (Protocol protocol : concrete_protocols()) {
    if (!tuning.cost(plan.context(), protocol, HopClass::kNvlink).supported) continue;
    const SimTime time = profile.time(rounded, protocol, tuning) + profile.pipeline_fill(rounded, protocol, tuning);
    if (!best || time < *best) best = time;
  }
  CTWIN_ASSERT(best.has_value(), "some protocol runs every algorithm");
  return *best;
}

CollectiveResult predict_collective(const fabric::Fabric& fabric, const CollectiveQuery& query) {
  const int channels = query.tuning.channels > 0 ? query.tuning.channels : default_channels(fabric);
  std::vector<Candidate> candidates;
  const auto algorithms =
      query.algorithm == Algorithm::kAuto ? candidate_algorithms(query.op, fabric) : std::vector{query.algorithm};
  for (Algorithm algorithm : algorithms) {
    Candidate candidate{make_plan(query.op, algorithm, fabric, channels), nullptr};
    // The every-transfer path needs the profile too, for the pipeline fill both paths add.
    candidate.profile = std::make_unique<PlanProfile>(candidate.plan, fabric, query.network);
    candidates.push_back(std::move(candidate));
  }
  const auto protocols = query.protocol == Protocol::kAuto ? concrete_protocols() : std::vector{query.protocol};

  CollectiveResult result{query.op, fabric.gpus(), channels, {}};
  for (const auto& candidate : candidates) result.events += candidate.profile ? candidate.profile->events() : 0;
  count_items(query.sizes.size());
  for (Bytes requested : query.sizes) {
    const Bytes size = rounded_size(query.op, requested, fabric.gpus(), query.element_bytes);
    CollectiveRow best;
    bool found = false;
    for (const auto& candidate : candidates) {
      for (Protocol protocol : protocols) {
        if (!query.tuning.cost(candidate.plan.context(), protocol, HopClass::kNvlink).supported) continue;
        const SimTime time = (query.every_transfer
                                  ? run_every_transfer(candidate.plan, fabric, query.network, size, protocol, query.tuning)
                                  : candidate.profile->time(size, protocol, query.tuning)) +
                             candidate.profile->pipeline_fill(size, protocol, query.tuning);
        if (!found || time < best.time) {
          best.time = time;
          best.algorithm = candidate.plan.algorithm;
          best.protocol = protocol;
          found = true;
        }
      }
    }
    if (!found) {
      throw InputError("--proto", "", std::string(name(query.algorithm)) + " does not run with protocol " +
                                          std::string(name(query.protocol)) + " (NVLS runs Simple only)");
    }
    best.size = size;
    best.count = size.count() / query.element_bytes;
    const double seconds = best.time.seconds();
    best.algbw_GBps = seconds > 0 ? static_cast<double>(size.count()) / seconds / 1e9 : 0;
    best.busbw_GBps = best.algbw_GBps * busbw_factor(query.op, fabric.gpus());
    limits::require_finite_non_negative(best.time.seconds(), "collective time");
    limits::require_finite_non_negative(best.algbw_GBps, "collective algbw");
    limits::require_finite_non_negative(best.busbw_GBps, "collective busbw");
    result.rows.push_back(best);
    count_done();
  }
  return result;
}

}  // namespace ctwin::collectives
