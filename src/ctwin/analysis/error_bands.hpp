#pragma once
// How far a prediction may be off: the p10 and p90 of the held-out errors (predicted / measured
// throughput − 1) of the published training runs of the prediction's class (dense or MoE,
// calibrated or not, GPU family, network model). The errors and their quantiles are data
// (models/error_bands.json, written by validation/training/error_bands.py); this file reads them,
// picks a prediction's class and turns the quantiles into intervals of what would be measured.

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ctwin/replay/scenario.hpp"

namespace ctwin::analysis {

/// What a prediction is, as far as its error is concerned.
struct ErrorBandKey {
  bool moe = false;
  bool calibrated = false;      ///< the GPU profile has a fitted training_time_scale
  std::string gpu_family;       ///< the profile's "arch" ("hopper")
  std::string network;          ///< the network model's name ("analytical")
};

/// The scenario's class: MoE when the model has experts, calibrated when its GPU profile has a
/// fitted training_time_scale (not 1), the profile's arch, the scenario's network model.
[[nodiscard]] ErrorBandKey error_band_key(const replay::Scenario& scenario);

/// One class of the data file: its held-out errors and their quantiles.
struct ErrorBandClass {
  bool moe = false;
  bool calibrated = false;
  std::string gpu_family;  ///< an arch, or "all" for the class pooled over families
  std::string network;
  int runs = 0;  ///< distinct runs (an MoE run may bring an error from each of two folds)
  double p10 = 0;
  double p90 = 0;
  std::vector<std::string> error_runs;  ///< the run of each error, in the file's order
  std::vector<double> errors;
};

struct ErrorBands {
  std::string source;  ///< the file, for what a band says it came from
  std::vector<ErrorBandClass> classes;
};

/// A prediction's band: the class whose errors it takes and the relative interval they give.
struct ErrorBand {
  ErrorBandKey key;             ///< the prediction's own class
  const ErrorBandClass* from;   ///< the class whose errors serve (points into the ErrorBands)
  /// Why `from` is not `key` exactly ("no held-out hopper runs of this class; all families pooled"), empty when it is.
  std::vector<std::string> fallbacks;
};

/// An interval of a measured figure, low <= high.
struct Interval {
  double low = 0;
  double high = 0;
};

/// The value at quantile q in [0, 1], linear between order statistics (numpy's default, type 7).
/// `values` must not be empty.
[[nodiscard]] double quantile(std::vector<double> values, double q);

/// Parses the data file strictly: unknown keys, missing fields, errors at or below −1, quantiles
/// that do not follow from their errors (to 1e-6) are InputErrors naming `source` and the pointer.
[[nodiscard]] ErrorBands parse_error_bands(const nlohmann::json& document, const std::string& source);
[[nodiscard]] ErrorBands load_error_bands(const std::filesystem::path& path);

/// The class for `key`: its own family when the file has it, else "all" of the same model kind
/// and calibration; a network the file has no errors for takes the file's network, said in the
/// fallbacks. An InternalError when not even the pooled class exists (the file is incomplete).
[[nodiscard]] ErrorBand band_for(const ErrorBands& bands, const ErrorBandKey& key);

/// What would be measured for a predicted throughput-like figure (tokens/s, TFLOP/s, MFU):
/// measured = predicted / (1 + error), so p90 of the error gives the low end.
[[nodiscard]] Interval throughput_interval(double predicted, const ErrorBandClass& c);
/// The same for a time (the step's): measured = predicted × (1 + error).
[[nodiscard]] Interval time_interval(double predicted_s, const ErrorBandClass& c);

/// {"class": key, "errors_from": {gpu_family, network, runs, p10_error, p90_error, file}, "fallbacks"}:
/// the part of every band's JSON that does not depend on the figure.
[[nodiscard]] nlohmann::json error_band_class_json(const ErrorBand& band, const std::string& file);
[[nodiscard]] nlohmann::json interval_json(const Interval& interval);
/// "dense, uncalibrated, hopper, analytical (16 runs)": the band's source in one phrase, for tables.
[[nodiscard]] std::string error_band_phrase(const ErrorBand& band);

}  // namespace ctwin::analysis
