#include "ctwin/studies/sweep.hpp"

#include <mutex>
#include <sstream>

#include "ctwin/api/build_warnings.hpp"
#include "ctwin/api/shard.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/core/parallel_for.hpp"

namespace ctwin::api {
namespace {

// A grid past this is a typo or a job for `ctwin plan`, not a table to read.
constexpr std::size_t kMaxPoints = 1'000'000;

using nlohmann::json;

const json& sweep_shard_field(const json& object, const char* key, const std::string& source) {
  if (!object.is_object() || !object.contains(key)) {
    throw InputError(source, "", "not a shard of `ctwin sweep --shard` (no '" + std::string(key) + "')");
  }
  return object[key];
}

template <typename T>
T read(const json& object, const char* key, const std::string& source) {
  try {
    return sweep_shard_field(object, key, source).get<T>();
  } catch (const json::exception&) {
    throw InputError(source, std::string("/") + key, "has the wrong type for a sweep shard");
  }
}

}  // namespace

GridAxis parse_grid_axis(const std::string& text, const std::string& origin) {
  const Override parsed = parse_override(text, origin);
  GridAxis axis;
  axis.path = parsed.path;
  const std::string list = text.substr(text.find('=') + 1);
  std::stringstream in(list);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (item.empty()) throw InputError(origin, "", "empty value in '" + text + "' (expected field=v1,v2,...)");
    axis.texts.push_back(item);
    axis.values.push_back(parse_override(axis.path + "=" + item, origin).value);
  }
  if (axis.texts.empty()) throw InputError(origin, "", "no values in '" + text + "' (expected field=v1,v2,...)");
  return axis;
}

SweepResult evaluate_sweep(const Scenario& base, const std::vector<GridAxis>& axes, EvalContext& context,
                           const SweepOptions& options) {
  SweepResult result;
  result.axes = axes;
  result.model = base.resolve(&context.profiles()).model.name;
  std::size_t count = 1;
  for (const auto& axis : axes) {
    if (axis.values.empty()) throw InputError("--grid", "", "'" + axis.path + "' has no values");
    count *= axis.values.size();
    if (count > kMaxPoints) throw InputError("--grid", "", "the grid has more than 1,000,000 points");
    // Each value alone on the base: a value that cannot stand there is a mistake, not a point.
    for (std::size_t v = 0; v < axis.values.size(); ++v) {
      try {
        (void)base.with(axis.path, axis.values[v]).resolve(&context.profiles());
      } catch (const InputError& e) {
        throw InputError("--grid", "", axis.path + "=" + axis.texts[v] + ": " + e.what());
      }
    }
  }
  if (options.shard_count < 1 || options.shard_index >= options.shard_count) {
    throw InputError("--shard", "", "shard index outside the shard count");
  }
  result.grid_points = count;
  result.shard_index = options.shard_index;
  result.shard_count = options.shard_count;
  result.scenario_fingerprint = scenario_fingerprint(base);
  const std::size_t mine = count / options.shard_count + (options.shard_index < count % options.shard_count ? 1 : 0);
  result.points.resize(mine);
  std::mutex progress_mutex;
  std::size_t done = 0;
  parallel_for(mine, options.jobs, [&](std::size_t slot) {
    SweepPoint& point = result.points[slot];
    const std::size_t index = slot * options.shard_count + options.shard_index;
    point.index = index;
    Scenario scenario = base;
    // Mixed radix, last axis fastest: the order a nested loop over the axes would give.
    std::size_t rest = index;
    point.values.resize(axes.size());
    std::vector<std::size_t> chosen(axes.size());
    for (std::size_t a = axes.size(); a-- > 0;) {
      chosen[a] = rest % axes[a].values.size();
      rest /= axes[a].values.size();
    }
    for (std::size_t a = 0; a < axes.size(); ++a) {
      point.values[a] = axes[a].texts[chosen[a]];
      scenario = scenario.with(axes[a].path, axes[a].values[chosen[a]]);
    }
    try {
      const StepResult step = evaluate(scenario, context);
      point.report = step.step.report;
      point.figures = replay::figures_of(point.report);
      point.warnings = step_warnings(step.scenario);
    } catch (const InputError& e) {
      point.invalid = e.what();
    }
    if (options.progress) {
      const std::lock_guard lock(progress_mutex);
      options.progress(++done, mine);
    }
  });
  return result;
}

json sweep_json(const SweepResult& result) {
  const bool shard = result.shard_count > 1;
  json axes = json::array();
  for (const auto& axis : result.axes) axes.push_back({{"field", axis.path}, {"values", axis.texts}});
  json points = json::array();
  for (const auto& p : result.points) {
    json entry = json::object();
    if (shard) entry["index"] = p.index;
    for (std::size_t a = 0; a < result.axes.size(); ++a) entry[result.axes[a].path] = p.values[a];
    if (!p.invalid.empty()) {
      entry["invalid"] = p.invalid;
    } else {
      entry.update(replay::to_json(p.figures, kSweepFigures));
    }
    entry["warnings"] = build_warnings_json(p.warnings);
    points.push_back(std::move(entry));
  }
  json out{{"model", result.model}, {"axes", axes}};
  if (shard) {
    out["shard"] = {{"index", result.shard_index + 1}, {"count", result.shard_count}};
    out["grid_points"] = result.grid_points;
    out["scenario"] = result.scenario_fingerprint;
  }
  out["points"] = points;
  return out;
}

SweepResult merge_sweeps(const std::vector<json>& shards, const std::vector<std::string>& sources) {
  if (shards.empty()) throw InputError("--merge", "", "no files to merge");
  SweepResult merged;
  ShardSet seen;
  std::vector<bool> filled;
  for (std::size_t f = 0; f < shards.size(); ++f) {
    const json& j = shards[f];
    const std::string& source = sources.at(f);
    const json& shard = sweep_shard_field(j, "shard", source);
    seen.add(read<std::size_t>(shard, "index", source), read<std::size_t>(shard, "count", source), source);
    const auto model = read<std::string>(j, "model", source);
    const auto grid_points = read<std::size_t>(j, "grid_points", source);
    const auto fingerprint_text = read<std::string>(j, "scenario", source);
    const json& axes = sweep_shard_field(j, "axes", source);
    if (f == 0) {
      merged.model = model;
      merged.grid_points = grid_points;
      merged.scenario_fingerprint = fingerprint_text;
      if (!axes.is_array()) throw InputError(source, "/axes", "expected an array");
      for (const auto& a : axes) {
        GridAxis axis;
        axis.path = read<std::string>(a, "field", source);
        axis.texts = read<std::vector<std::string>>(a, "values", source);
        for (const auto& text : axis.texts) axis.values.push_back(parse_override(axis.path + "=" + text, source).value);
        merged.axes.push_back(std::move(axis));
      }
      // The grid is its axes' product: a shard's own count is not trusted (an edited count of
      // 10^18 points asked for that many flags, std::bad_alloc; issue 36).
      std::size_t product = 1;
      for (const auto& axis : merged.axes) {
        if (axis.texts.empty() || product > kMaxPoints / axis.texts.size()) {
          throw InputError(source, "/axes", "an axis is empty or the grid has more than 1,000,000 points");
        }
        product *= axis.texts.size();
      }
      if (grid_points != product) {
        throw InputError(source, "/grid_points", std::to_string(grid_points) + " is not the product of the axes' value counts (" +
                                                     std::to_string(product) + ")");
      }
      filled.assign(grid_points, false);
      merged.points.resize(grid_points);
    } else if (model != merged.model || grid_points != merged.grid_points ||
               fingerprint_text != merged.scenario_fingerprint || axes != sweep_shard_field(shards.front(), "axes", sources.front())) {
      throw InputError(source, "", "is a shard of another sweep than " + sources.front() +
                                       " (scenario, its --set/--network/--calibration, and --grid must match)");
    }
    for (const auto& p : sweep_shard_field(j, "points", source)) {
      const auto index = read<std::size_t>(p, "index", source);
      if (index >= grid_points || index % seen.count() != read<std::size_t>(shard, "index", source) - 1 ||
          filled[index]) {
        throw InputError(source, "/points", "point " + std::to_string(index) + " does not belong to this shard");
      }
      filled[index] = true;
      SweepPoint& point = merged.points[index];
      point.index = index;
      const std::string at = "/points/" + std::to_string(index);
      for (const auto& axis : merged.axes) point.values.push_back(read<std::string>(p, axis.path.c_str(), source));
      // Mixed radix, last axis fastest, as evaluate_sweep numbers the points.
      std::size_t rest = index;
      for (std::size_t a = merged.axes.size(); a-- > 0;) {
        const auto& texts = merged.axes[a].texts;
        if (point.values[a] != texts[rest % texts.size()]) {
          throw InputError(source, at + "/" + merged.axes[a].path,
                           "'" + point.values[a] + "' is not point " + std::to_string(index) + "'s value on this axis ('" +
                               texts[rest % texts.size()] + "')");
        }
        rest /= texts.size();
      }
      // Shards written before points carried their warnings have none to give.
      if (p.contains("warnings")) point.warnings = read_build_warnings_json(p["warnings"], source, at + "/warnings");
      if (p.contains("invalid")) {
        point.invalid = read<std::string>(p, "invalid", source);
        continue;
      }
      // Checked as a run's report is (replay::check_step_report).
      point.figures = replay::figures_from_json(p, kSweepFigures, source, at, "a shard of `ctwin sweep --shard`");
    }
  }
  seen.check_complete();
  for (std::size_t i = 0; i < filled.size(); ++i) {
    if (!filled[i]) throw InputError("--merge", "", "point " + std::to_string(i) + " is in no shard");
  }
  return merged;
}

}  // namespace ctwin::api
