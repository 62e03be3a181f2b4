#pragma once
// `ctwin layer` for front ends: one transformer layer's kernels as the compute twin times them,
// and the twin against layer times a collector measured (validation/collect/layer_bench.py).

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ctwin/api/data_dir.hpp"
#include "ctwin/replay/layer_times.hpp"

namespace ctwin::api {

/// One measured row against the prediction of the same model, sequence, batch and precision.
struct LayerComparisonRow {
  replay::LayerMeasurement measured;
  replay::LayerPrediction predicted;
  double forward_error = 0;   ///< predicted / measured − 1
  double backward_error = 0;
};

struct LayerComparison {
  std::string source;       ///< the measurements file as read
  std::string measured_gpu;  ///< as the collector's machine named it
  std::string gpu_profile;  ///< the profile the predictions ran on, as given
  std::vector<LayerComparisonRow> rows;
};

/// Every row of the measurements file `measured`, predicted with `query` (its model, sequence,
/// batch and precision taken from the row). `repo_root` holds models/ (default: data_dir()).
[[nodiscard]] LayerComparison compare_layers(const replay::LayerQuery& query, const std::string& measured,
                                             const std::filesystem::path& repo_root = data_dir());

/// `ctwin layer --format json`: {"model", "gpu", "forward_ms", "backward_ms", "kernels": [{name, forward_us, backward_us}]}.
[[nodiscard]] nlohmann::json layer_json(const replay::LayerPrediction& prediction);

/// `ctwin layer --measured --format json`: {"measured", "measured_gpu", "gpu_profile", "rows"}.
[[nodiscard]] nlohmann::json layer_comparison_json(const LayerComparison& comparison);

}  // namespace ctwin::api
