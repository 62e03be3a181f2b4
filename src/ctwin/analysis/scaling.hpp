#pragma once
// Linearity, the way 10k-card acceptance tests report it: the same training job at growing GPU
// counts, throughput at each, and linearity = throughput / (throughput at the smallest size ×
// size ratio). Strong scaling keeps the global batch (more DP replicas share it); weak scaling
// grows the global batch with the GPU count (each DP replica keeps its share).
//
// A fixed batch that a size's data parallelism does not divide (2,048 sequences over dp 80) is
// a hole in the curve; a user sizing a build wants the nearest batch that runs, said per size,
// so rounding to the nearest multiple of micro-batch·dp is the default for strong scaling.

#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "ctwin/analysis/error_bands.hpp"
#include "ctwin/fabric/build_checks.hpp"
#include "ctwin/replay/scenario.hpp"
#include "ctwin/replay/step_report.hpp"

namespace ctwin::analysis {

/// How each size's global batch is chosen.
enum class BatchPolicy {
  kFixed,       ///< the scenario's: a size whose micro-batch·dp does not divide it is invalid
  kPerReplica,  ///< each DP replica keeps the scenario's share: weak scaling
  kNearest,     ///< the scenario's, rounded to the nearest multiple of micro-batch·dp (at least one)
};

[[nodiscard]] std::string_view batch_policy_name(BatchPolicy policy);
/// "fixed", "per-replica" or "nearest"; InputError naming `origin` otherwise.
[[nodiscard]] BatchPolicy parse_batch_policy(const std::string& text, const std::string& origin);

struct ScalingQuery {
  std::filesystem::path scenario;
  std::filesystem::path repo_root;
  std::vector<std::string> overrides;  ///< applied at every size, before the size's own
  std::vector<std::int64_t> gpus;      ///< the sizes, ascending
  BatchPolicy batch = BatchPolicy::kNearest;
  unsigned jobs = 1;  ///< sizes simulated at once (each on its own thread; results do not depend on it)
  /// Called, one call at a time, as each size finishes: sizes done so far, the number of sizes, its GPUs.
  std::function<void(std::size_t, std::size_t, std::int64_t)> progress;
  /// Reads the scenario with a size's own overrides ("gpus=64") added; by default
  /// load_scenario(scenario, repo_root, overrides + the size's). Called from several threads.
  std::function<replay::Scenario(const std::vector<std::string>& size_overrides)> load;
  /// Simulates one size's step; by default replay::simulate_step. Called from several threads.
  std::function<replay::StepReport(const replay::Scenario&)> simulate;
  /// The build and split checks of one size (api::step_warnings); none by default. Called from
  /// several threads.
  std::function<std::vector<fabric::BuildWarning>(const replay::Scenario&)> warnings;
};

struct ScalingPoint {
  std::int64_t gpus = 0;
  std::int64_t global_batch = 0;
  std::string batch_note;  ///< how the batch was derived when it is not the scenario's; empty otherwise
  std::string invalid;  ///< why this size cannot run the split; empty when it ran
  replay::StepReport report;
  double linearity = 0;  ///< against the smallest size that ran
  /// What the build checks say of this size (an 800G NIC behind a Gen5 slot, TP across nodes):
  /// they travel with the point, as `run` prints them beside its step (issue 35).
  std::vector<fabric::BuildWarning> warnings;
};

struct ScalingStudy {
  std::string model;
  BatchPolicy batch = BatchPolicy::kNearest;
  ErrorBandKey error_band;  ///< the class of every point's prediction (the size does not change it)
  std::vector<ScalingPoint> points;
};

/// Runs the scenario at every size. A size the split cannot use (GPUs not divisible by
/// tp·pp·cp, batch not divisible by micro-batch·dp, ...) becomes a point with `invalid` set;
/// InputError only when the scenario itself is bad or no size can run.
[[nodiscard]] ScalingStudy run_scaling(const ScalingQuery& query);

}  // namespace ctwin::analysis
