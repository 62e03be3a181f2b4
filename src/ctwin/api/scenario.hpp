#pragma once
// A training scenario as a value (docs/input-formats.md, "Scenario"): its document, where it came from,
// and the changes made to it. `with` returns a changed copy, so a sweep or a notebook derives
// hundreds of scenarios from one without touching files. Nothing is checked until `resolve`,
// so a chain of changes may pass through states that are not valid on their own (tp 4 before
// the pp that makes it fit).

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "ctwin/core/overrides.hpp"
#include "ctwin/replay/scenario.hpp"

namespace ctwin::api {

class Scenario {
 public:
  /// A scenario file; relative paths inside it are tried next to it, then under data_dir().
  /// A path that does not exist is tried under data_dir() too ("scenarios/default.json").
  [[nodiscard]] static Scenario load(const std::string& path);
  /// A document built in memory; `source` names it in messages, relative paths are tried in the
  /// working directory, then under data_dir().
  [[nodiscard]] static Scenario from_json(nlohmann::json document, std::string source = "<scenario>");
  /// JSON text; malformed text is an InputError naming `source`.
  [[nodiscard]] static Scenario from_json_text(std::string_view text, std::string source = "<scenario>");

  /// A copy with `path` ("parallel.tp", "cluster.server.nics.bandwidth") set to `value`.
  [[nodiscard]] Scenario with(std::string path, nlohmann::json value) const;
  /// A copy with `--set`-style assignments ("parallel.tp=4") applied.
  [[nodiscard]] Scenario with_assignments(const std::vector<std::string>& assignments) const;

  /// The scenario read strictly and validated; InputError naming the file and field otherwise.
  /// GPU profiles come from `profiles` when given (an EvalContext's).
  [[nodiscard]] replay::Scenario resolve(replay::GpuProfileCache* profiles = nullptr) const;
  /// The same, but its split not yet checked against its job (replay::read_scenario): for a
  /// caller that runs it with a split of its own (replay::Scenario::with_split), as the planner does.
  [[nodiscard]] replay::Scenario resolve_for_split(replay::GpuProfileCache* profiles = nullptr) const;

  [[nodiscard]] const nlohmann::json& document() const { return document_; }
  [[nodiscard]] const std::string& source() const { return source_; }
  [[nodiscard]] const std::vector<Override>& changes() const { return changes_; }

 private:
  Scenario(nlohmann::json document, std::string source, std::filesystem::path dir);

  nlohmann::json document_;
  std::string source_;
  std::filesystem::path dir_;
  std::vector<Override> changes_;
  bool changed_by_flag_ = false;  ///< errors in a change's path name `--set` rather than the scenario
};

/// A copy of `scenario` calibrated by `file` (its `calibration` field set; the file is looked
/// up as given, then under data_dir()); empty `file` leaves it as it is. InputError naming
/// `origin` when there is no such file.
[[nodiscard]] Scenario with_calibration(const Scenario& scenario, const std::string& file,
                                        const std::string& origin = "--calibration");

/// Applies the calibration file `s` names (its `calibration` field), if any and not yet applied:
/// the bundle's GPU profile replaces the scenario's (same GPU name, or InputError), its cluster
/// fit sets the link efficiencies and the collectives' protocol costs. `resolve` calls it.
void apply_calibration(replay::Scenario& s);

}  // namespace ctwin::api
