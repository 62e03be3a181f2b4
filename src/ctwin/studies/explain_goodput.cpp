#include "ctwin/studies/explain_goodput.hpp"

#include <cmath>
#include <cstdio>

#include "ctwin/analysis/goodput_study.hpp"
#include "ctwin/analysis/reliability_model.hpp"
#include "ctwin/analysis/spare_pool.hpp"
#include "ctwin/api/data_dir.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/core/json_reader.hpp"
#include "ctwin/core/overrides.hpp"
#include "ctwin/core/rate_parse.hpp"
#include "ctwin/core/unit_parse.hpp"
#include "ctwin/fabric/fabric.hpp"
#include "ctwin/fabric/summary.hpp"
#include "ctwin/studies/goodput.hpp"
#include "ctwin/studies/goodput_checkpoint.hpp"

namespace ctwin::api {
namespace {

constexpr const char* kGoodputPrefix = "goodput.";
constexpr const char* kCheckpointTierFile = "models/reliability/storage.json";

// "auto" or a duration of at most a year; the error names the chain's field.
void check_explain_interval(const std::string& text, JsonObjectReader& reader) {
  if (text == "auto") return;
  double hours = 0;
  try {
    hours = parse_hours(text);
  } catch (const UnitError& error) {
    reader.fail("interval", error.what());
  }
  if (!(hours > 0) || hours > 8766) reader.fail("interval", "'" + text + "' must be auto or a time from 1s to a year");
}

constexpr const char* kStepsSuffix = "steps";
constexpr double kMostExplainInterruptions = 5e7;

// "100 steps" → 100 steps; anything else a duration.
struct ExplainInterruptionEvery {
  double steps = 0;
  double hours = 0;
};

ExplainInterruptionEvery parse_interruption_every(const std::string& text) {
  ExplainInterruptionEvery out;
  const std::size_t at = text.rfind(kStepsSuffix);
  if (at != std::string::npos && at + std::string(kStepsSuffix).size() == text.size()) {
    std::size_t used = 0;
    const std::string number = text.substr(0, at);
    try {
      out.steps = std::stod(number, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || number.find_first_not_of(' ', used) != std::string::npos || !(out.steps >= 1) || out.steps > 1e9) {
      throw UnitError("'" + text + "' must be a number of steps from 1 to 1e9 (\"100 steps\") or a time (\"10min\")");
    }
    return out;
  }
  out.hours = parse_hours(text);
  if (!(out.hours * 3600 >= 1) || out.hours > 87660) {
    throw UnitError("'" + text + "' must be a time from 1s to ten years, or a number of steps (\"100 steps\")");
  }
  return out;
}

}  // namespace

bool is_goodput_assignment(const std::string& assignment) { return assignment.rfind(kGoodputPrefix, 0) == 0; }

ExplainGoodputSettings read_explain_goodput(const nlohmann::json& document, const std::string& source,
                                            const std::vector<std::string>& changes, const std::string& origin) {
  nlohmann::json wrapped{{"goodput", document}};
  std::vector<Override> overrides;
  for (const std::string& assignment : changes) overrides.push_back(parse_override(assignment, source + " " + origin));
  apply_changes(wrapped, overrides, source + " " + origin);
  const nlohmann::json& settings = wrapped.at("goodput");
  if (!settings.is_object()) throw InputError(source, origin, "goodput must be an object");
  JsonObjectReader reader(settings, source, origin);
  ExplainGoodputSettings out;
  out.days = reader.number_or("days", 1.0 / 24, 3650, out.days);
  out.runs = reader.integer_or("runs", 1, 100000, out.runs);
  out.seed = static_cast<std::uint64_t>(reader.integer_or("seed", 0, INT64_MAX, 1));
  out.reliability = reader.string_or("reliability", out.reliability);
  out.storage = reader.string_or("storage", out.storage);
  out.interval = reader.string_or("interval", out.interval);
  check_explain_interval(out.interval, reader);
  out.spares = reader.string_or("spares", out.spares);
  if (const nlohmann::json* every = reader.optional("interruption_every"); every != nullptr && !every->is_null()) {
    out.interruption_every = reader.string("interruption_every");
    try {
      (void)parse_interruption_every(out.interruption_every);
    } catch (const UnitError& error) {
      reader.fail("interruption_every", error.what());
    }
  }
  reader.finish();
  // The reliability file's own errors name it; a missing one names this field.
  try {
    (void)analysis::load_reliability_model(resolve_data_path(out.reliability));
  } catch (const InputError& error) {
    throw InputError(source, origin + "/reliability", error.what());
  }
  return out;
}

ExplainGoodput explain_goodput(const ExplainGoodputSettings& settings, const replay::Scenario& scenario,
                               double step_time_s, double tokens_per_s,
                               const std::optional<replay::CheckpointTiming>& checkpoint) {
  analysis::ReliabilityModel model = analysis::load_reliability_model(resolve_data_path(settings.reliability));
  if (!settings.interruption_every.empty()) {
    const ExplainInterruptionEvery parsed = parse_interruption_every(settings.interruption_every);
    analysis::ComponentRate every;
    every.name = "an interruption every " + settings.interruption_every;
    every.group = "software";
    every.per = analysis::CountBasis::kJob;
    every.rate_per_hour = parsed.steps > 0 ? 3600 / (parsed.steps * step_time_s) : 1 / parsed.hours;
    // Each interruption is an event of the Monte Carlo, in every run and at every interval the
    // search tries: past this many the link would take minutes, which no chain needs.
    const double events = every.rate_per_hour * settings.days * 24 * static_cast<double>(settings.runs) * 18;
    if (events > kMostExplainInterruptions) {
      char text[160];
      std::snprintf(text, sizeof text, "over %g days and %lld runs is %.3g simulated interruptions, more than %g",
                    settings.days, static_cast<long long>(settings.runs), events, kMostExplainInterruptions);
      throw InputError("goodput", "/interruption_every",
                       "'" + settings.interruption_every + "' " + text + ": fewer runs or days, or rarer interruptions");
    }
    every.takes = analysis::FailureScope::kJob;
    every.source = "the chain's goodput.interruption_every";
    every.assumed = true;
    model.components = {every};
  }
  const analysis::StorageTier tier =
      checkpoint_tier(settings.storage, kCheckpointTierFile, scenario.cluster, "goodput.storage");
  const fabric::Fabric built(scenario.cluster, static_cast<int>(scenario.gpus));
  const fabric::FabricSummary summary = fabric::summarize(built);
  analysis::GoodputInputs in;
  in.days = settings.days;
  in.runs = static_cast<int>(settings.runs);
  in.seed = settings.seed;
  if (settings.interval != "auto") in.interval_s = parse_hours(settings.interval) * 3600;
  in.spares.hot = analysis::parse_spare_count(settings.spares, "goodput.spares", summary.nodes, summary.scalable_units);
  in.step_time_s = step_time_s;
  in.tokens_per_s = tokens_per_s;
  (void)take_scenario_checkpoint(scenario, summary.nodes,
                                 settings.storage == "auto" ? std::nullopt : std::optional<analysis::StorageTier>(tier),
                                 true, checkpoint, in);
  const analysis::GoodputStudy study = analysis::run_goodput_study(scenario, summary, model, tier, in);
  ExplainGoodput out;
  out.ettr = study.result.ettr.mean;
  out.goodput = study.result.goodput.mean;
  out.interruptions_per_day = study.failures_per_hour * 24;
  out.checkpoint_blocking_s = study.checkpoint.blocking_s;
  out.checkpoint_load_s = study.checkpoint.load_s;
  out.interval_s = study.config.interval_s;
  out.tier = study.checkpoint.tier;
  return out;
}

nlohmann::json explain_goodput_settings_json(const ExplainGoodputSettings& s) {
  nlohmann::json out{{"days", s.days},       {"runs", s.runs},         {"seed", s.seed},
                     {"reliability", s.reliability}, {"storage", s.storage}, {"interval", s.interval},
                     {"spares", s.spares}, {"interruption_every", nullptr}};
  if (!s.interruption_every.empty()) out["interruption_every"] = s.interruption_every;
  return out;
}

nlohmann::json explain_goodput_json(const ExplainGoodput& g) {
  return {{"ettr", g.ettr},
          {"goodput", g.goodput},
          {"interruptions_per_day", g.interruptions_per_day},
          {"checkpoint_tier", g.tier},
          {"checkpoint_blocking_s", g.checkpoint_blocking_s},
          {"checkpoint_load_s", g.checkpoint_load_s},
          {"checkpoint_interval_s", g.interval_s}};
}

}  // namespace ctwin::api
