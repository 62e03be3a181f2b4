#include "ctwin/analysis/error_bands.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "ctwin/core/error.hpp"
#include "ctwin/core/json_reader.hpp"
#include "ctwin/network/network_model.hpp"

namespace ctwin::analysis {
namespace {

// Quantiles are stored rounded to six decimals by the script that writes them.
constexpr double kQuantileTolerance = 1e-6;

ErrorBandClass parse_class(const nlohmann::json& object, const std::string& source, const std::string& pointer) {
  JsonObjectReader r(object, source, pointer);
  ErrorBandClass c;
  c.moe = r.choice("model", {"dense", "moe"}) == "moe";
  c.calibrated = r.boolean("calibrated");
  c.gpu_family = r.string("gpu_family");
  c.network = r.choice("network", {"analytical", "flow", "simgrid"});
  c.runs = static_cast<int>(r.integer("runs", 1, 100000));
  c.p10 = r.number("p10", -0.999999, 1e3);
  c.p90 = r.number("p90", -0.999999, 1e3);
  const nlohmann::json& errors = r.required("errors");
  if (!errors.is_array() || errors.empty()) r.fail("errors", "must be a non-empty array of {run, how, error}");
  std::set<std::string> runs;
  for (std::size_t i = 0; i < errors.size(); ++i) {
    JsonObjectReader e(errors[i], source, r.pointer_to("errors") + "/" + std::to_string(i));
    c.error_runs.push_back(e.string("run"));
    (void)e.string("how");
    // An error at −1 would be a measured value of infinity: no run gives it.
    c.errors.push_back(e.number("error", -0.999999, 1e3));
    e.finish();
    runs.insert(c.error_runs.back());
  }
  if (static_cast<int>(runs.size()) != c.runs) {
    r.fail("runs", "says " + std::to_string(c.runs) + " but the errors name " + std::to_string(runs.size()) + " runs");
  }
  if (std::abs(quantile(c.errors, 0.1) - c.p10) > kQuantileTolerance) r.fail("p10", "is not the p10 of the class's errors");
  if (std::abs(quantile(c.errors, 0.9) - c.p90) > kQuantileTolerance) r.fail("p90", "is not the p90 of the class's errors");
  r.finish();
  return c;
}

bool same_kind(const ErrorBandClass& c, const ErrorBandKey& key) { return c.moe == key.moe && c.calibrated == key.calibrated; }

const ErrorBandClass* find(const ErrorBands& bands, const ErrorBandKey& key, const std::string& family, const std::string& network) {
  for (const auto& c : bands.classes) {
    if (same_kind(c, key) && c.gpu_family == family && c.network == network) return &c;
  }
  return nullptr;
}

}  // namespace

ErrorBandKey error_band_key(const replay::Scenario& scenario) {
  return {scenario.model.has_moe, scenario.gpu.training_time_scale != 1.0, scenario.gpu.arch,
          std::string(network::name(scenario.network))};
}

double quantile(std::vector<double> values, double q) {
  if (values.empty()) throw InternalError("quantile of no values");
  std::sort(values.begin(), values.end());
  const double h = static_cast<double>(values.size() - 1) * q;
  const auto lo = static_cast<std::size_t>(std::floor(h));
  const std::size_t hi = std::min(lo + 1, values.size() - 1);
  return values[lo] + (h - static_cast<double>(lo)) * (values[hi] - values[lo]);
}

ErrorBands parse_error_bands(const nlohmann::json& document, const std::string& source) {
  JsonObjectReader r(document, source, "");
  ErrorBands bands{source, {}};
  (void)r.string("description");
  (void)r.choice("quantile", {"linear between order statistics (type 7)"});
  const nlohmann::json& classes = r.required("classes");
  if (!classes.is_array() || classes.empty()) r.fail("classes", "must be a non-empty array");
  for (std::size_t i = 0; i < classes.size(); ++i) {
    bands.classes.push_back(parse_class(classes[i], source, "/classes/" + std::to_string(i)));
  }
  r.finish();
  return bands;
}

ErrorBands load_error_bands(const std::filesystem::path& path) { return parse_error_bands(load_json_file(path), path.string()); }

ErrorBand band_for(const ErrorBands& bands, const ErrorBandKey& key) {
  ErrorBand band{key, nullptr, {}};
  std::string network = key.network;
  const bool has_network = std::any_of(bands.classes.begin(), bands.classes.end(),
                                       [&](const ErrorBandClass& c) { return same_kind(c, key) && c.network == network; });
  if (!has_network) {
    // Only the analytical network is simulated over every run today: a flow prediction's error is
    // not known, so it takes the nearest one and says so.
    for (const auto& c : bands.classes) {
      if (same_kind(c, key)) {
        network = c.network;
        break;
      }
    }
    band.fallbacks.push_back("no held-out runs on the " + key.network + " network; errors of the " + network + " network");
  }
  band.from = find(bands, key, key.gpu_family, network);
  if (band.from == nullptr) {
    band.from = find(bands, key, "all", network);
    band.fallbacks.push_back("too few held-out " + key.gpu_family + " runs of this class; all GPU families pooled");
  }
  if (band.from == nullptr) {
    throw InternalError(bands.source + " has no class for " + std::string(key.moe ? "MoE" : "dense") +
                        (key.calibrated ? ", calibrated" : ", uncalibrated") + " over all GPU families");
  }
  return band;
}

Interval throughput_interval(double predicted, const ErrorBandClass& c) {
  return {predicted / (1 + c.p90), predicted / (1 + c.p10)};
}

Interval time_interval(double predicted_s, const ErrorBandClass& c) {
  return {predicted_s * (1 + c.p10), predicted_s * (1 + c.p90)};
}

nlohmann::json error_band_class_json(const ErrorBand& band, const std::string& file) {
  const ErrorBandClass& c = *band.from;
  nlohmann::json out{{"class",
                      {{"model", band.key.moe ? "moe" : "dense"},
                       {"calibrated", band.key.calibrated},
                       {"gpu_family", band.key.gpu_family},
                       {"network", band.key.network}}},
                     {"errors_from",
                      {{"file", file},
                       {"gpu_family", c.gpu_family},
                       {"network", c.network},
                       {"runs", c.runs},
                       {"p10_error", c.p10},
                       {"p90_error", c.p90}}}};
  if (!band.fallbacks.empty()) out["fallbacks"] = band.fallbacks;
  return out;
}

nlohmann::json interval_json(const Interval& interval) { return {{"p10", interval.low}, {"p90", interval.high}}; }

std::string error_band_phrase(const ErrorBand& band) {
  const ErrorBandClass& c = *band.from;
  return std::string(c.moe ? "MoE" : "dense") + (c.calibrated ? ", calibrated, " : ", uncalibrated, ") +
         (c.gpu_family == "all" ? "all GPU families" : c.gpu_family) + ", " + c.network + " network (" +
         std::to_string(c.runs) + " held-out runs)";
}

}  // namespace ctwin::analysis
