#pragma once
// A GPU profile's training_time_scale fitted on measured layer times (layer_times.hpp): the one
// factor, a geometric mean of measured / predicted over the fitted rows, by which a training
// step's kernels run slower than the kernel model says. Rows of the "hot" phase are fitted when
// the file has any (a sustained run is what training meets); the error on a held-out file is
// reported apart, as for GEMM and NCCL calibration.

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "ctwin/replay/layer_times.hpp"

namespace ctwin::replay {

struct LayerFitRow {
  LayerMeasurement measured;
  double predicted_ms = 0;  ///< forward + backward, the base profile as it is
  double error = 0;         ///< after the fit: scale × predicted / measured − 1
};

struct LayerFit {
  double base_scale = 1;  ///< the base profile's own training_time_scale
  double scale = 1;       ///< the fitted training_time_scale (base_scale × the fitted factor)
  std::string phase;      ///< the phase fitted: "hot", or "all" when the file has no hot rows
  std::vector<LayerFitRow> fitted;
  std::vector<LayerFitRow> held_out;
  double fit_median_abs_error = 0;
  std::optional<double> held_out_median_abs_error;
};

/// Predicts every row of `fit` (and of `held_out`) on `base_gpu` (a profile file or a name under
/// models/gpus) and fits the scale. InputError when a row cannot be predicted.
[[nodiscard]] LayerFit fit_training_time_scale(const LayerMeasurements& fit, const std::optional<LayerMeasurements>& held_out,
                                               const std::string& base_gpu, const std::filesystem::path& repo_root);

}  // namespace ctwin::replay
