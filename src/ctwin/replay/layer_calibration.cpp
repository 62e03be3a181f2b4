#include "ctwin/replay/layer_calibration.hpp"

#include <algorithm>
#include <cmath>

#include "ctwin/core/error.hpp"

namespace ctwin::replay {
namespace {

std::vector<LayerFitRow> predicted(const LayerMeasurements& file, const std::string& base_gpu,
                                   const std::filesystem::path& repo_root, bool hot_only, double& base_scale) {
  std::vector<LayerFitRow> rows;
  for (const auto& m : file.rows) {
    if (hot_only && m.phase != "hot") continue;
    LayerQuery query;
    query.model = m.model;
    query.gpu = base_gpu;
    query.seq_len = m.seq_len;
    query.micro_batch = m.micro_batch;
    query.tp = m.tp;
    query.precision = m.precision;
    const LayerPrediction p = predict_layer(query, repo_root);
    base_scale = p.training_time_scale;
    rows.push_back({m, p.forward_ms + p.backward_ms, 0});
  }
  return rows;
}

double median_abs_error(std::vector<LayerFitRow>& rows, double factor) {
  std::vector<double> errors;
  for (auto& row : rows) {
    row.error = factor * row.predicted_ms / (row.measured.forward_ms + row.measured.backward_ms) - 1;
    errors.push_back(std::abs(row.error));
  }
  std::sort(errors.begin(), errors.end());
  const std::size_t n = errors.size();
  return n % 2 == 1 ? errors[n / 2] : (errors[n / 2 - 1] + errors[n / 2]) / 2;
}

}  // namespace

LayerFit fit_training_time_scale(const LayerMeasurements& fit, const std::optional<LayerMeasurements>& held_out,
                                 const std::string& base_gpu, const std::filesystem::path& repo_root) {
  LayerFit out;
  const bool hot = std::any_of(fit.rows.begin(), fit.rows.end(), [](const auto& m) { return m.phase == "hot"; });
  out.phase = hot ? "hot" : "all";
  out.fitted = predicted(fit, base_gpu, repo_root, hot, out.base_scale);
  double log_sum = 0;
  for (const auto& row : out.fitted) log_sum += std::log((row.measured.forward_ms + row.measured.backward_ms) / row.predicted_ms);
  const double factor = std::exp(log_sum / static_cast<double>(out.fitted.size()));
  out.scale = out.base_scale * factor;
  if (out.scale < 0.25 || out.scale > 4.0) {
    throw InputError(fit.source, "/rows", "the fitted training_time_scale " + std::to_string(out.scale) +
                                              " is outside 0.25..4: the measurements do not look like this GPU");
  }
  out.fit_median_abs_error = median_abs_error(out.fitted, factor);
  if (held_out) {
    double ignored = 1;
    out.held_out = predicted(*held_out, base_gpu, repo_root, hot && std::any_of(held_out->rows.begin(), held_out->rows.end(),
                                                                                 [](const auto& m) { return m.phase == "hot"; }),
                             ignored);
    if (out.held_out.empty()) throw InputError(held_out->source, "/rows", "no rows of the fitted phase to judge");
    out.held_out_median_abs_error = median_abs_error(out.held_out, factor);
  }
  return out;
}

}  // namespace ctwin::replay
