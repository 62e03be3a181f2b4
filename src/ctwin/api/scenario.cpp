#include "ctwin/api/scenario.hpp"

#include <utility>

#include "ctwin/api/data_dir.hpp"
#include "ctwin/calibration/calibration_bundle.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/core/input_file.hpp"
#include "ctwin/core/json_reader.hpp"
#include "ctwin/core/path_checks.hpp"

namespace ctwin::api {

Scenario::Scenario(nlohmann::json document, std::string source, std::filesystem::path dir)
    : document_(std::move(document)), source_(std::move(source)), dir_(std::move(dir)) {}

Scenario Scenario::load(const std::string& path) {
  const std::filesystem::path file = resolve_named(path, DataKind::kScenario);
  const std::filesystem::path dir = file.parent_path().empty() ? std::filesystem::path(".") : file.parent_path();
  return Scenario(load_json_file(file), input_source_name(file), dir);
}

Scenario Scenario::from_json(nlohmann::json document, std::string source) {
  return Scenario(std::move(document), std::move(source), ".");
}

Scenario Scenario::from_json_text(std::string_view text, std::string source) {
  nlohmann::json document = parse_json_text(std::string(text), source);
  return from_json(std::move(document), std::move(source));
}

Scenario Scenario::with(std::string path, nlohmann::json value) const {
  Scenario changed = *this;
  changed.changes_.push_back({std::move(path), std::move(value)});
  return changed;
}

Scenario Scenario::with_assignments(const std::vector<std::string>& assignments) const {
  Scenario changed = *this;
  for (const auto& assignment : assignments) changed.changes_.push_back(parse_override(assignment));
  changed.changed_by_flag_ = changed_by_flag_ || !assignments.empty();
  return changed;
}

replay::Scenario Scenario::resolve(replay::GpuProfileCache* profiles) const {
  replay::Scenario s = replay::parse_scenario(document_, source_, dir_, data_dir(), changes_,
                                              changed_by_flag_ ? "--set" : source_, profiles);
  apply_calibration(s);
  return s;
}

replay::Scenario Scenario::resolve_for_split(replay::GpuProfileCache* profiles) const {
  replay::Scenario s = replay::read_scenario(document_, source_, dir_, data_dir(), changes_,
                                             changed_by_flag_ ? "--set" : source_, profiles);
  apply_calibration(s);
  return s;
}

Scenario with_calibration(const Scenario& scenario, const std::string& file, const std::string& origin) {
  if (file.empty()) return scenario;
  const std::filesystem::path path = resolve_data_path(file);
  if (!is_file_path(path)) throw InputError(origin, "", "no calibration file '" + file + "'");
  // Absolute, so that the scenario's own directory does not change which file is meant.
  return scenario.with("calibration", std::filesystem::absolute(path).lexically_normal().string());
}

void apply_calibration(replay::Scenario& s) {
  if (s.calibration.empty() || s.calibrated) return;
  const calibration::CalibrationBundle bundle = calibration::read_calibration_bundle(s.calibration);
  if (bundle.gpu) {
    // A profile fitted to one GPU says nothing about another: a mismatch is a wrong file, not a choice.
    if (bundle.gpu->name != s.gpu.name) {
      throw InputError(s.calibration, "/gpu/name",
                       "calibrates " + bundle.gpu->name + " but the scenario runs on " + s.gpu.name);
    }
    s.gpu = *bundle.gpu;
  }
  if (bundle.nccl) {
    s.cluster = bundle.nccl->apply(std::move(s.cluster));
    s.tuning = bundle.nccl->tuning;
  }
  // Caches of fabrics and collective times are keyed by the cluster: a calibrated one is another build.
  s.cluster_key += "\ncalibration:" + bundle.text;
  s.calibrated = true;
}

}  // namespace ctwin::api
