#include "ctwin/api/error_band.hpp"

#include "ctwin/api/data_dir.hpp"

namespace ctwin::api {

analysis::ErrorBands load_bundled_error_bands() {
  analysis::ErrorBands bands = analysis::load_error_bands(data_dir() / kErrorBandsFile);
  bands.source = kErrorBandsFile;  // not the absolute path: reports keep their bytes on every machine
  return bands;
}

nlohmann::json error_band_intervals_json(const analysis::ErrorBand& band, const replay::StepFigures& figures) {
  using replay::Figure;
  using replay::figure_name;
  const analysis::ErrorBandClass& c = *band.from;
  nlohmann::json out{
      {figure_name(Figure::kStepTime), analysis::interval_json(analysis::time_interval(figures.step_time_s, c))},
      {figure_name(Figure::kTokensPerS), analysis::interval_json(analysis::throughput_interval(figures.tokens_per_s, c))},
      {figure_name(Figure::kMfu), analysis::interval_json(analysis::throughput_interval(figures.mfu, c))}};
  if (figures.model_tflops_per_gpu > 0) {
    out[figure_name(Figure::kModelTflopsPerGpu)] =
        analysis::interval_json(analysis::throughput_interval(figures.model_tflops_per_gpu, c));
  }
  return out;
}

nlohmann::json error_band_class_json(const analysis::ErrorBand& band) {
  return analysis::error_band_class_json(band, kErrorBandsFile);
}

nlohmann::json error_band_json(const analysis::ErrorBand& band, const replay::StepFigures& figures) {
  nlohmann::json out = error_band_class_json(band);
  out.update(error_band_intervals_json(band, figures));
  return out;
}

}  // namespace ctwin::api
