#include "ctwin/api/error_band.hpp"

#include "ctwin/api/data_dir.hpp"

namespace ctwin::api {

analysis::ErrorBands load_bundled_error_bands() {
  analysis::ErrorBands bands = analysis::load_error_bands(data_dir() / kErrorBandsFile);
  bands.source = kErrorBandsFile;  // not the absolute path: reports keep their bytes on every machine
  return bands;
}

BandedFigures banded_figures(const replay::StepReport& report) {
  return {report.step_time_s, report.tokens_per_s, report.mfu, report.model_tflops_per_gpu};
}

nlohmann::json error_band_intervals_json(const analysis::ErrorBand& band, const BandedFigures& figures) {
  const analysis::ErrorBandClass& c = *band.from;
  nlohmann::json out{{"step_time_s", analysis::interval_json(analysis::time_interval(figures.step_time_s, c))},
                     {"tokens_per_s", analysis::interval_json(analysis::throughput_interval(figures.tokens_per_s, c))},
                     {"mfu", analysis::interval_json(analysis::throughput_interval(figures.mfu, c))}};
  if (figures.model_tflops_per_gpu > 0) {
    out["model_tflops_per_gpu"] = analysis::interval_json(analysis::throughput_interval(figures.model_tflops_per_gpu, c));
  }
  return out;
}

nlohmann::json error_band_class_json(const analysis::ErrorBand& band) {
  return analysis::error_band_class_json(band, kErrorBandsFile);
}

nlohmann::json error_band_json(const analysis::ErrorBand& band, const BandedFigures& figures) {
  nlohmann::json out = error_band_class_json(band);
  out.update(error_band_intervals_json(band, figures));
  return out;
}

}  // namespace ctwin::api
