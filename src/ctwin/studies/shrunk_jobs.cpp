#include "ctwin/studies/shrunk_jobs.hpp"

#include <utility>

#include "ctwin/api/evaluate.hpp"
#include "ctwin/core/error.hpp"

namespace ctwin::api {

ShrunkJobs::ShrunkJobs(Scenario scenario, EvalContext& context, long long replicas, std::int64_t replica_gpus)
    : scenario_(std::move(scenario)), context_(context), replicas_(replicas), replica_gpus_(replica_gpus) {}

const ShrunkJob& ShrunkJobs::job(long long replicas) {
  if (const auto it = jobs_.find(replicas); it != jobs_.end()) return it->second;
  ShrunkJob job;
  job.replicas = replicas;
  job.gpus = replicas * replica_gpus_;
  ScalingOptions options;
  options.gpus = {job.gpus};
  options.batch = analysis::BatchPolicy::kNearest;
  try {
    const analysis::ScalingStudy study = evaluate_scaling(scenario_, context_, options);
    const analysis::ScalingPoint& point = study.points.front();
    job.global_batch = point.global_batch;
    job.step_time_s = point.report.step_time_s;
    job.tokens_per_s = point.report.tokens_per_s;
  } catch (const InputError& error) {
    job.invalid = error.what();  // the split cannot run this many GPUs: a fact about the size
  }
  return jobs_[replicas] = job;
}

double ShrunkJobs::share(long long running) {
  ShrunkJob& whole = jobs_.at(job(replicas_).replicas);
  whole.share = 1;
  ShrunkJob& smaller = jobs_.at(job(running).replicas);
  const bool simulated = whole.invalid.empty() && smaller.invalid.empty() && whole.tokens_per_s > 0;
  smaller.share = simulated ? smaller.tokens_per_s / whole.tokens_per_s
                            : static_cast<double>(running) / static_cast<double>(replicas_);
  return smaller.share;
}

}  // namespace ctwin::api
