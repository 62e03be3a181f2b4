// ctwin calibrate --layers: a GPU profile's training_time_scale from measured layer times
// (validation/collect/layer_bench.py), written into a copy of the base profile.

#include <iostream>

#include <nlohmann/json.hpp>

#include "ctwin/calibration/calibrated_profile.hpp"
#include "ctwin/cli/calibrate_options.hpp"
#include "ctwin/cli/fabric_options.hpp"
#include "ctwin/cli/gpu_option.hpp"
#include "ctwin/cli/output.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/core/json_reader.hpp"
#include "ctwin/replay/layer_calibration.hpp"

namespace ctwin::cli {
namespace {

void add_rows(Table& table, const std::string& set, const std::vector<replay::LayerFitRow>& rows) {
  for (const auto& row : rows) {
    const auto& m = row.measured;
    table.add_row({set, m.model, std::to_string(m.seq_len), std::to_string(m.micro_batch), m.phase,
                   fixed(m.forward_ms + m.backward_ms, 3), fixed(row.predicted_ms, 3), signed_percent(row.error)});
  }
}

}  // namespace

void write_profile_with_scale(const std::filesystem::path& base_path, double scale, const std::string& source,
                              const std::string& output) {
  nlohmann::json profile = load_json_file(base_path);
  // A borrowed GEMM table is named relative to the base's folder: the output, written anywhere,
  // carries the lender's table itself.
  if (profile.contains("gemm_table_from")) {
    if (profile.contains("gemm_table")) {
      throw InputError("--base", "", "the profile borrows part of its GEMM table (gemm_table_from); calibrate the lender");
    }
    const auto lender = base_path.parent_path() / (profile["gemm_table_from"].get<std::string>() + ".json");
    profile["gemm_table"] = load_json_file(lender).at("gemm_table");
    if (!profile.contains("calibration") || !profile["calibration"].is_object()) profile["calibration"] = nlohmann::json::object();
    profile["calibration"]["gemm_table_copied_from"] = lender.filename().string() + " (was gemm_table_from: " +
                                                      profile["sources"].value("gemm_table_from", std::string()) + ")";
    profile.erase("gemm_table_from");
    profile["sources"].erase("gemm_table_from");
  }
  profile["training_time_scale"] = scale;
  profile["sources"]["training_time_scale"] = source;
  calibration::write_profile(profile, output);
}

void print_scale_headline(double scale, double base_scale, const std::string& from, const std::string& output,
                          double fit_median_abs_error, std::optional<double> held_out_median_abs_error) {
  std::cout << "training_time_scale " << fixed(scale, 4) << " (base " << fixed(base_scale, 4) << ") from " << from
            << " -> " << output << "\n  median |error|: fit " << fixed(100 * fit_median_abs_error, 1) << " %";
  if (held_out_median_abs_error) std::cout << ", held out " << fixed(100 * *held_out_median_abs_error, 1) << " %";
}

void calibrate_layers(const CalibrateOptions& options) {
  if (options.base.empty()) throw InputError("--base", "", "required with --layers: the GPU profile to calibrate");
  if (options.output.empty()) throw InputError("-o", "", "required with --layers: where to write the calibrated profile");
  if (options.holdout.size() > 1) throw InputError("--holdout", "", "takes one layer file with --layers");
  const Format format = parse_format(options.format);
  const auto base_path = resolve_gpu_path(options.base);
  const auto measured = replay::read_layer_measurements(resolve_data_path(options.layers));
  std::optional<replay::LayerMeasurements> held_out;
  if (!options.holdout.empty()) held_out = replay::read_layer_measurements(resolve_data_path(options.holdout.front()));
  const replay::LayerFit fit = replay::fit_training_time_scale(measured, held_out, base_path.string(), CTWIN_DATA_DIR);

  write_profile_with_scale(base_path, fit.scale,
                           "ctwin calibrate --layers " + options.layers + ": geometric mean of measured / predicted layer time over " +
                               std::to_string(fit.fitted.size()) + " " + fit.phase + " rows measured on " + measured.gpu +
                               " (median |error| after the fit " + fixed(100 * fit.fit_median_abs_error, 1) + " %)",
                           options.output);

  if (format == Format::kJson) {
    nlohmann::json out{{"output", options.output}, {"measured_gpu", measured.gpu}, {"phase", fit.phase},
                       {"base_scale", fit.base_scale}, {"training_time_scale", fit.scale},
                       {"fit_median_abs_error", fit.fit_median_abs_error}};
    if (fit.held_out_median_abs_error) out["holdout_median_abs_error"] = *fit.held_out_median_abs_error;
    std::cout << out.dump(2) << '\n';
    return;
  }
  if (format == Format::kTable) {
    print_scale_headline(fit.scale, fit.base_scale,
                         std::to_string(fit.fitted.size()) + " " + fit.phase + " layer timings on " + measured.gpu,
                         options.output, fit.fit_median_abs_error, fit.held_out_median_abs_error);
    std::cout << "\n";
  }
  Table table({"set", "model", "seq", "mb", "phase", "measured_ms", "predicted_ms", "error_after_fit"});
  add_rows(table, "fit", fit.fitted);
  add_rows(table, "holdout", fit.held_out);
  table.print(std::cout, format, format == Format::kTable ? "  " : "");
}

}  // namespace ctwin::cli
