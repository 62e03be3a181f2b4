#pragma once
// A GPU profile's training_time_scale fitted on measured training runs (a cases file such as
// validation/training/cases.json): the one factor by which a step's compute kernels run slower
// than the kernel model says, chosen so that the runs' predicted throughput matches the measured
// in geometric mean. Throughput is not proportional to the scale (exposed communication and
// bubbles do not stretch with it), so the runs are simulated at successive scales: a secant search
// on x = ln(scale) for the root of g(x) = mean over runs of ln(predicted / measured).
//
// Cross-validation says whether one factor per GPU explains runs it was not fitted on: each dense
// run of a GPU is predicted with the scale fitted on that GPU's other dense runs (leave one out),
// and, more strictly, with the scale fitted on its GPU's dense runs from other sources (leave one
// source out: another framework or release must transfer).
// Mixture-of-experts runs are never fitted on (their unmodelled costs, routing imbalance and
// dispatcher synchronisation, are not a compute rate) and are predicted with the scale of all the
// GPU's dense runs.

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ctwin/replay/training_validation.hpp"

namespace ctwin::replay {

/// One run's predictions at the scales simulated while fitting: ln(predicted) as a function of
/// ln(scale), piecewise linear between the points and extended along the end segments.
struct ScaleCurve {
  std::vector<double> log_scales;     ///< ascending
  std::vector<double> log_predicted;  ///< at each of log_scales
  [[nodiscard]] double at(double log_scale) const;
};

struct TrainingScaleFit {
  double base_scale = 1;  ///< the runs' profile's own training_time_scale, where the search starts
  double scale = 1;       ///< fitted
  int rounds = 0;         ///< scales simulated
  /// exp(mean ln(predicted / measured)) − 1 over the fitted runs at `scale`: ~0 once converged.
  double geometric_mean_error = 0;
  std::vector<TrainingComparison> at_base;    ///< each run as the base profile predicts it
  std::vector<TrainingComparison> at_scale;   ///< each run at the fitted scale
  std::vector<ScaleCurve> curves;             ///< each run's predictions at every scale simulated
};

/// How far a fit or a cross-validation has got: a scale simulated for one GPU's runs, or the
/// held-out predictions starting. Front ends decide how to show it.
struct CalibrationStep {
  enum class Kind { kRound, kHeldOut };
  Kind kind = Kind::kRound;
  std::string gpu;                     ///< kRound: whose runs
  int round = 0;                       ///< kRound: 1 for the first scale simulated
  double scale = 1;                    ///< kRound: the training_time_scale simulated
  double geometric_mean_error = 0;     ///< kRound: exp(mean ln(predicted / measured)) − 1 there
  std::size_t simulations = 0;         ///< kHeldOut: runs about to be simulated
};
using CalibrationProgress = std::function<void(const CalibrationStep&)>;

/// Fits the scale on `runs`, which must all run on GPU profiles of one name (InputError otherwise,
/// or when a run cannot be simulated). Each round simulates every run, `jobs` at a time.
[[nodiscard]] TrainingScaleFit fit_training_time_scale(const std::vector<const TrainingCase*>& runs,
                                                       const std::optional<network::ModelKind>& network, unsigned jobs,
                                                       const CalibrationProgress& progress = {});

/// Every run of `runs` with its profile's training_time_scale set to `scale`.
[[nodiscard]] std::vector<TrainingComparison> predict_at_scale(const std::vector<const TrainingCase*>& runs, double scale,
                                                               const std::optional<network::ModelKind>& network, unsigned jobs);

/// The ln(scale) at which the mean of curve(x) − ln(measured) over `curves` is zero, found on the
/// curves alone (no simulation), searched within ln(0.25)..ln(4).
[[nodiscard]] double solve_log_scale(const std::vector<const ScaleCurve*>& curves, const std::vector<double>& log_measured);

struct CrossValidatedRun {
  const TrainingCase* training_case = nullptr;
  bool dense = true;  ///< fitted on (when others are left out); false: a mixture-of-experts run
  TrainingComparison uncalibrated;
  /// Predicted with `scale`; empty when no other dense run of its GPU gives a fit.
  std::optional<TrainingComparison> calibrated;
  double scale = 1;
  std::size_t fitted_on = 0;  ///< runs the scale was fitted on (never this one)
  /// The stricter test, for dense runs: the scale fitted on its GPU's dense runs of other sources
  /// (another framework, release or team), empty when its GPU has none.
  std::optional<TrainingComparison> other_sources;
  double other_sources_scale = 1;
  std::size_t other_sources_runs = 0;
};

struct GpuTrainingScale {
  std::string gpu;
  std::size_t dense_runs = 0;
  double scale = 1;  ///< fitted on all of the GPU's dense runs (what MoE runs are predicted with)
  int rounds = 0;
};

struct TrainingCrossValidation {
  std::vector<CrossValidatedRun> runs;  ///< in the order of `chosen`
  std::vector<GpuTrainingScale> gpus;   ///< by GPU name
};

[[nodiscard]] TrainingCrossValidation cross_validate_training(const std::vector<const TrainingCase*>& chosen,
                                                              const std::optional<network::ModelKind>& network, unsigned jobs,
                                                              const CalibrationProgress& progress = {});

}  // namespace ctwin::replay
