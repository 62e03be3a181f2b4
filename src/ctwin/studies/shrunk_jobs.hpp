#pragma once
// The step of a job that lost data-parallel replicas and runs on (`goodput --on-empty shrink`):
// the twin's step of the scenario at r replicas (r·tp·pp·cp GPUs of the same cluster), its global
// batch per analysis::BatchPolicy::kNearest (the scenario's, rounded to a multiple of
// micro-batch·r, as `ctwin scale` does), simulated once per distinct r. The smaller job loses
// less than r/dp of the tokens when its step shortens (less data-parallel communication, or
// fewer micro-batches to reduce), and more when the rounded batch leaves the pipeline emptier.

#include <cstdint>
#include <map>
#include <string>

#include "ctwin/api/eval_context.hpp"
#include "ctwin/api/scenario.hpp"

namespace ctwin::api {

struct ShrunkJob {
  long long replicas = 0;
  std::int64_t gpus = 0;
  std::int64_t global_batch = 0;
  double step_time_s = 0;
  double tokens_per_s = 0;
  double share = 0;     ///< tokens_per_s over the whole job's, as the twin gives both
  std::string invalid;  ///< why the split cannot run at this size (then share is r/dp)
};

class ShrunkJobs {
 public:
  /// `scenario` with `replicas` data-parallel replicas of `replica_gpus` GPUs each.
  ShrunkJobs(Scenario scenario, EvalContext& context, long long replicas, std::int64_t replica_gpus);

  /// Tokens per second at `running` replicas over the whole job's; simulated on first use.
  [[nodiscard]] double share(long long running);
  /// Every size simulated so far, by replica count.
  [[nodiscard]] const std::map<long long, ShrunkJob>& jobs() const { return jobs_; }

 private:
  [[nodiscard]] const ShrunkJob& job(long long replicas);

  Scenario scenario_;
  EvalContext& context_;
  long long replicas_;
  std::int64_t replica_gpus_;
  std::map<long long, ShrunkJob> jobs_;
};

}  // namespace ctwin::api
