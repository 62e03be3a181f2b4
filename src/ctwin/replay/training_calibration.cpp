#include "ctwin/replay/training_calibration.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "ctwin/core/error.hpp"

namespace ctwin::replay {
namespace {

// The profile format's bounds on the scale: outside them the runs do not look like this GPU.
const double kMinLogScale = std::log(0.25);
const double kMaxLogScale = std::log(4.0);
// |mean ln(predicted / measured)| below this is converged: 0.05 % in geometric mean, far below
// what separates the runs from each other.
constexpr double kTolerance = 5e-4;
constexpr int kMaxRounds = 8;

using ScaledRun = std::pair<const TrainingCase*, double>;

std::vector<TrainingComparison> predict_each(const std::vector<ScaledRun>& runs, const std::optional<network::ModelKind>& network,
                                             unsigned jobs) {
  std::vector<TrainingCase> scaled;
  scaled.reserve(runs.size());
  for (const auto& [run, scale] : runs) {
    scaled.push_back(*run);
    scaled.back().scenario.gpu.training_time_scale = scale;
  }
  std::vector<const TrainingCase*> pointers;
  for (const auto& c : scaled) pointers.push_back(&c);
  auto results = validate_training(pointers, network, {}, jobs);
  for (std::size_t i = 0; i < results.size(); ++i) results[i].training_case = runs[i].first;
  return results;
}

void insert_point(ScaleCurve& curve, double log_scale, double log_predicted) {
  const auto at = std::lower_bound(curve.log_scales.begin(), curve.log_scales.end(), log_scale);
  const auto index = at - curve.log_scales.begin();
  if (at != curve.log_scales.end() && *at == log_scale) {
    curve.log_predicted[static_cast<std::size_t>(index)] = log_predicted;
    return;
  }
  curve.log_scales.insert(at, log_scale);
  curve.log_predicted.insert(curve.log_predicted.begin() + index, log_predicted);
}

double mean_log_error(const std::vector<TrainingComparison>& results) {
  double sum = 0;
  for (const auto& r : results) sum += std::log(r.predicted / r.training_case->measured);
  return sum / static_cast<double>(results.size());
}

}  // namespace

double ScaleCurve::at(double log_scale) const {
  CTWIN_ASSERT(!log_scales.empty(), "a curve has at least the base point");
  if (log_scales.size() == 1) {
    // One point only (the base already fitted): assume throughput inversely proportional to the
    // scale, the pure-compute limit.
    return log_predicted[0] - (log_scale - log_scales[0]);
  }
  std::size_t hi = static_cast<std::size_t>(std::upper_bound(log_scales.begin(), log_scales.end(), log_scale) -
                                            log_scales.begin());
  hi = std::clamp<std::size_t>(hi, 1, log_scales.size() - 1);
  const std::size_t lo = hi - 1;
  const double t = (log_scale - log_scales[lo]) / (log_scales[hi] - log_scales[lo]);
  return log_predicted[lo] + t * (log_predicted[hi] - log_predicted[lo]);
}

std::vector<TrainingComparison> predict_at_scale(const std::vector<const TrainingCase*>& runs, double scale,
                                                 const std::optional<network::ModelKind>& network, unsigned jobs) {
  std::vector<ScaledRun> scaled;
  for (const auto* run : runs) scaled.emplace_back(run, scale);
  return predict_each(scaled, network, jobs);
}

TrainingScaleFit fit_training_time_scale(const std::vector<const TrainingCase*>& runs,
                                         const std::optional<network::ModelKind>& network, unsigned jobs,
                                         const CalibrationProgress& progress) {
  if (runs.empty()) throw InputError("--training", "", "no run to fit the training_time_scale on");
  const std::string& gpu = runs.front()->scenario.gpu.name;
  for (const auto* run : runs) {
    if (run->scenario.gpu.name != gpu) {
      throw InputError(run->scenario.source, "/gpu",
                       "case " + run->id + " runs on " + run->scenario.gpu.name + ", not " + gpu + ": fit one GPU at a time");
    }
  }
  TrainingScaleFit fit;
  fit.base_scale = runs.front()->scenario.gpu.training_time_scale;
  fit.curves.resize(runs.size());

  struct Round {
    double log_scale;
    double mean_log_error;
    std::vector<TrainingComparison> results;
  };
  std::vector<Round> rounds;
  const auto evaluate = [&](double log_scale) {
    auto results = predict_at_scale(runs, std::exp(log_scale), network, jobs);
    for (std::size_t i = 0; i < results.size(); ++i) insert_point(fit.curves[i], log_scale, std::log(results[i].predicted));
    const double g = mean_log_error(results);
    if (progress) {
      progress({.kind = CalibrationStep::Kind::kRound,
                .gpu = gpu,
                .round = static_cast<int>(rounds.size()) + 1,
                .scale = std::exp(log_scale),
                .geometric_mean_error = std::exp(g) - 1});
    }
    rounds.push_back({log_scale, g, std::move(results)});
    return g;
  };

  double x_prev = std::log(fit.base_scale);
  double g_prev = evaluate(x_prev);
  // The first step assumes throughput inversely proportional to the scale; the secant then
  // learns how much of the step actually stretches.
  double x = std::clamp(x_prev + g_prev, kMinLogScale, kMaxLogScale);
  while (std::abs(rounds.back().mean_log_error) >= kTolerance && static_cast<int>(rounds.size()) < kMaxRounds &&
         x != x_prev) {
    const double g = evaluate(x);
    const double slope = (g - g_prev) / (x - x_prev);
    // Throughput falls as the scale grows; a flat or rising slope (a step whose critical path did
    // not move) falls back to the proportional step.
    double next = std::isfinite(slope) && slope < 0 ? x - g / slope : x + g;
    next = std::clamp(next, kMinLogScale, kMaxLogScale);
    x_prev = x;
    g_prev = g;
    x = next;
  }
  const auto best = std::min_element(rounds.begin(), rounds.end(), [](const Round& a, const Round& b) {
    return std::abs(a.mean_log_error) < std::abs(b.mean_log_error);
  });
  fit.scale = std::exp(best->log_scale);
  fit.rounds = static_cast<int>(rounds.size());
  fit.geometric_mean_error = std::exp(best->mean_log_error) - 1;
  fit.at_base = std::move(rounds.front().results);
  fit.at_scale = best == rounds.begin() ? fit.at_base : std::move(best->results);
  return fit;
}

double solve_log_scale(const std::vector<const ScaleCurve*>& curves, const std::vector<double>& log_measured) {
  CTWIN_ASSERT(!curves.empty() && curves.size() == log_measured.size(), "one measurement per curve");
  const auto mean_error = [&](double x) {
    double sum = 0;
    for (std::size_t i = 0; i < curves.size(); ++i) sum += curves[i]->at(x) - log_measured[i];
    return sum / static_cast<double>(curves.size());
  };
  double lo = kMinLogScale;
  double hi = kMaxLogScale;
  // A larger scale predicts less throughput; at the bounds the runs are beyond this GPU.
  if (mean_error(lo) <= 0) return lo;
  if (mean_error(hi) >= 0) return hi;
  for (int i = 0; i < 200 && hi - lo > 1e-12; ++i) {
    const double mid = (lo + hi) / 2;
    (mean_error(mid) > 0 ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

TrainingCrossValidation cross_validate_training(const std::vector<const TrainingCase*>& chosen,
                                                const std::optional<network::ModelKind>& network, unsigned jobs,
                                                const CalibrationProgress& progress) {
  TrainingCrossValidation out;
  out.runs.resize(chosen.size());
  std::map<std::string, std::vector<std::size_t>> by_gpu;
  for (std::size_t i = 0; i < chosen.size(); ++i) {
    out.runs[i].training_case = chosen[i];
    out.runs[i].dense = !chosen[i]->scenario.model.has_moe;
    by_gpu[chosen[i]->scenario.gpu.name].push_back(i);
  }

  // Runs still to simulate once every fit is known, all in one batch: the held-out dense runs at
  // their own scales, the MoE runs at the base and at their GPU's scale.
  std::vector<ScaledRun> batch;
  enum class Slot { kUncalibrated, kCalibrated, kOtherSources };
  std::vector<std::pair<std::size_t, Slot>> batch_slots;  // run index, which of its predictions
  for (const auto& [gpu, indices] : by_gpu) {
    std::vector<const TrainingCase*> dense;
    std::vector<std::size_t> dense_index;
    for (std::size_t i : indices) {
      if (out.runs[i].dense) {
        dense.push_back(chosen[i]);
        dense_index.push_back(i);
      }
    }
    GpuTrainingScale summary{gpu, dense.size(), chosen[indices.front()]->scenario.gpu.training_time_scale, 0};
    std::optional<TrainingScaleFit> fit;
    if (!dense.empty()) {
      fit = fit_training_time_scale(dense, network, jobs, progress);
      summary.scale = fit->scale;
      summary.rounds = fit->rounds;
      for (std::size_t k = 0; k < dense.size(); ++k) out.runs[dense_index[k]].uncalibrated = fit->at_base[k];
    }
    if (dense.size() >= 2) {
      for (std::size_t k = 0; k < dense.size(); ++k) {
        auto& run = out.runs[dense_index[k]];
        const auto fit_without = [&](bool whole_source) -> std::optional<std::pair<double, std::size_t>> {
          std::vector<const ScaleCurve*> others;
          std::vector<double> log_measured;
          for (std::size_t j = 0; j < dense.size(); ++j) {
            if (j == k || (whole_source && dense[j]->group == dense[k]->group)) continue;
            others.push_back(&fit->curves[j]);
            log_measured.push_back(std::log(dense[j]->measured));
          }
          if (others.empty()) return std::nullopt;
          return std::pair{std::exp(solve_log_scale(others, log_measured)), others.size()};
        };
        const auto one_out = fit_without(false);
        run.scale = one_out->first;
        run.fitted_on = one_out->second;
        batch.emplace_back(dense[k], run.scale);
        batch_slots.emplace_back(dense_index[k], Slot::kCalibrated);
        if (const auto source_out = fit_without(true)) {
          run.other_sources_scale = source_out->first;
          run.other_sources_runs = source_out->second;
          batch.emplace_back(dense[k], run.other_sources_scale);
          batch_slots.emplace_back(dense_index[k], Slot::kOtherSources);
        }
      }
    } else if (dense.size() == 1) {
      out.runs[dense_index[0]].scale = summary.scale;  // no other run: left uncalibrated
    }
    for (std::size_t i : indices) {
      if (out.runs[i].dense) continue;
      out.runs[i].scale = summary.scale;
      out.runs[i].fitted_on = dense.size();
      batch.emplace_back(chosen[i], chosen[i]->scenario.gpu.training_time_scale);
      batch_slots.emplace_back(i, Slot::kUncalibrated);
      if (fit) {
        batch.emplace_back(chosen[i], summary.scale);
        batch_slots.emplace_back(i, Slot::kCalibrated);
      }
    }
    out.gpus.push_back(summary);
  }
  if (progress) {
    CalibrationStep step;
    step.kind = CalibrationStep::Kind::kHeldOut;
    step.simulations = batch.size();
    progress(step);
  }
  auto results = predict_each(batch, network, jobs);
  for (std::size_t b = 0; b < results.size(); ++b) {
    auto& run = out.runs[batch_slots[b].first];
    switch (batch_slots[b].second) {
      case Slot::kUncalibrated: run.uncalibrated = std::move(results[b]); break;
      case Slot::kCalibrated: run.calibrated = std::move(results[b]); break;
      case Slot::kOtherSources: run.other_sources = std::move(results[b]); break;
    }
  }
  return out;
}

}  // namespace ctwin::replay
