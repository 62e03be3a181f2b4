#include "ctwin/api/build_warnings.hpp"
#include "ctwin/api/error_band.hpp"
#include "ctwin/api/report_json.hpp"
#include "ctwin/replay/step_figures.hpp"

namespace ctwin::api {
namespace {

using replay::Figure;
constexpr replay::FigureSet kScalingPointFigures{Figure::kDp,   Figure::kStepTime,  Figure::kTokensPerS,
                                                 Figure::kModelTflopsPerGpu, Figure::kMfu, Figure::kCommRatio,
                                                 Figure::kBubble, Figure::kFitsMemory};

}  // namespace

nlohmann::json scaling_points_json(const analysis::ScalingStudy& study) {
  const analysis::ErrorBands bands = load_bundled_error_bands();
  const analysis::ErrorBand band = analysis::band_for(bands, study.error_band);
  nlohmann::json points = nlohmann::json::array();
  for (const auto& p : study.points) {
    nlohmann::json entry{{"gpus", p.gpus}, {"global_batch", p.global_batch}};
    if (!p.batch_note.empty()) entry["batch_note"] = p.batch_note;
    if (!p.invalid.empty()) {
      entry["invalid"] = p.invalid;
    } else {
      const replay::StepFigures figures = replay::figures_of(p.report);
      entry.update(replay::to_json(figures, kScalingPointFigures));
      entry.update({{"linearity", p.linearity},
                    {"warnings", build_warnings_json(p.warnings)},
                    {"error_band", error_band_intervals_json(band, figures)}});
    }
    points.push_back(entry);
  }
  return points;
}

nlohmann::json scaling_json(const analysis::ScalingStudy& study) {
  const bool weak = study.batch == analysis::BatchPolicy::kPerReplica;
  const analysis::ErrorBands bands = load_bundled_error_bands();
  return nlohmann::json{{"model", study.model},
                        {"error_band", error_band_class_json(analysis::band_for(bands, study.error_band))},
                        {"scaling", weak ? "weak" : "strong"},
                        {"batch", analysis::batch_policy_name(study.batch)},
                        {"points", scaling_points_json(study)}};
}

}  // namespace ctwin::api
