#include "ctwin/analysis/scaling.hpp"

#include <algorithm>
#include <mutex>

#include "ctwin/core/error.hpp"
#include "ctwin/core/parallel_for.hpp"
#include "ctwin/replay/scenario.hpp"
#include "ctwin/replay/training_step.hpp"

namespace ctwin::analysis {
namespace {

struct SizedBatch {
  std::int64_t global_batch = 0;
  std::string note;  ///< why it differs from the scenario's
};

/// The global batch `policy` gives a size of `gpus`, from the scenario as written. A size whose
/// GPUs tp·pp·cp does not divide keeps the scenario's batch: loading it names the real reason.
SizedBatch batch_for(const replay::Scenario& base, std::int64_t gpus, BatchPolicy policy) {
  const workload::ParallelConfig& split = base.split;
  SizedBatch out{split.global_batch, ""};
  const std::int64_t model_parallel = split.tp * split.pp * split.cp;
  if (policy == BatchPolicy::kFixed || gpus % model_parallel != 0) return out;
  const std::int64_t dp = gpus / model_parallel;
  const std::int64_t unit = split.micro_batch * dp;
  if (policy == BatchPolicy::kPerReplica) {
    const std::int64_t per_replica = split.global_batch / split.data_parallel(base.gpus);
    out.global_batch = per_replica * dp;
    if (out.global_batch != split.global_batch) {
      out.note = std::to_string(per_replica) + " per DP replica x dp " + std::to_string(dp);
    }
    return out;
  }
  // Nearest multiple, ties upward; never zero, since a step needs one micro-batch per replica.
  const std::int64_t multiples = std::max<std::int64_t>(1, (split.global_batch + unit / 2) / unit);
  out.global_batch = multiples * unit;
  if (out.global_batch != split.global_batch) {
    out.note = "nearest multiple of micro-batch " + std::to_string(split.micro_batch) + " x dp " + std::to_string(dp) +
               " to " + std::to_string(split.global_batch);
  }
  return out;
}

}  // namespace

std::string_view batch_policy_name(BatchPolicy policy) {
  switch (policy) {
    case BatchPolicy::kFixed: return "fixed";
    case BatchPolicy::kPerReplica: return "per-replica";
    case BatchPolicy::kNearest: return "nearest";
  }
  return "nearest";
}

BatchPolicy parse_batch_policy(const std::string& text, const std::string& origin) {
  for (const BatchPolicy policy : {BatchPolicy::kFixed, BatchPolicy::kPerReplica, BatchPolicy::kNearest}) {
    if (text == batch_policy_name(policy)) return policy;
  }
  throw InputError(origin, "", "unknown batch policy '" + text + "' (expected fixed, per-replica or nearest)");
}

ScalingStudy run_scaling(const ScalingQuery& query) {
  if (query.gpus.empty()) throw InputError("--gpus", "", "give at least one size, e.g. 8,64,512");
  for (std::size_t i = 0; i < query.gpus.size(); ++i) {
    if (query.gpus[i] < 1) throw InputError("--gpus", "", "sizes must be positive");
    if (i > 0 && query.gpus[i] <= query.gpus[i - 1]) throw InputError("--gpus", "", "sizes must be ascending");
  }
  const auto load = [&query](const std::vector<std::string>& size_overrides) {
    if (query.load) return query.load(size_overrides);
    std::vector<std::string> overrides = query.overrides;
    overrides.insert(overrides.end(), size_overrides.begin(), size_overrides.end());
    return replay::load_scenario(query.scenario, query.repo_root, overrides);
  };
  const auto simulate = [&query](const replay::Scenario& scenario) {
    return query.simulate ? query.simulate(scenario) : replay::simulate_step(scenario).report;
  };
  // The job as written: its global batch and GPU count anchor weak scaling.
  const replay::Scenario base = load({});

  ScalingStudy study;
  study.model = base.model.name;
  study.batch = query.batch;
  study.error_band = error_band_key(base);
  study.points.resize(query.gpus.size());
  std::mutex progress_mutex;
  std::size_t done = 0;
  const auto report_progress = [&](std::int64_t gpus) {
    if (!query.progress) return;
    const std::lock_guard lock(progress_mutex);
    query.progress(done++, query.gpus.size(), gpus);
  };
  parallel_for(query.gpus.size(), query.jobs, [&](std::size_t i) {
    const std::int64_t gpus = query.gpus[i];
    ScalingPoint& point = study.points[i];
    point.gpus = gpus;
    std::vector<std::string> overrides;
    overrides.push_back("gpus=" + std::to_string(gpus));
    overrides.push_back("parallel.dp=auto");
    const SizedBatch batch = batch_for(base, gpus, query.batch);
    point.global_batch = batch.global_batch;
    point.batch_note = batch.note;
    if (batch.global_batch != base.split.global_batch) {
      overrides.push_back("training.global_batch=" + std::to_string(batch.global_batch));
    }
    try {
      const replay::Scenario sized = load(overrides);
      point.report = simulate(sized);
      if (query.warnings) point.warnings = query.warnings(sized);
    } catch (const InputError& error) {
      // The split cannot use this many GPUs: a fact about the size, reported with the reason.
      point.invalid = std::string(error.what());
    }
    report_progress(gpus);
  });

  const auto first = std::find_if(study.points.begin(), study.points.end(), [](const ScalingPoint& p) { return p.invalid.empty(); });
  if (first == study.points.end()) {
    throw InputError("--gpus", "", "no size can run this split: " + study.points.front().invalid);
  }
  for (auto& point : study.points) {
    if (!point.invalid.empty()) continue;
    const double ratio = static_cast<double>(point.gpus) / static_cast<double>(first->gpus);
    point.linearity = point.report.tokens_per_s / (first->report.tokens_per_s * ratio);
  }
  return study;
}

}  // namespace ctwin::analysis
