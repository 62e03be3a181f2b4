#include "ctwin/api/sweep.hpp"

#include <mutex>
#include <sstream>

#include "ctwin/core/error.hpp"
#include "ctwin/core/parallel_for.hpp"

namespace ctwin::api {
namespace {

// A grid past this is a typo or a job for `ctwin plan`, not a table to read.
constexpr std::size_t kMaxPoints = 1'000'000;

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
  result.points.resize(count);
  std::mutex progress_mutex;
  std::size_t done = 0;
  parallel_for(count, options.jobs, [&](std::size_t index) {
    SweepPoint& point = result.points[index];
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
      point.report = evaluate(scenario, context).step.report;
    } catch (const InputError& e) {
      point.invalid = e.what();
    }
    if (options.progress) {
      const std::lock_guard lock(progress_mutex);
      options.progress(++done, count);
    }
  });
  return result;
}

nlohmann::json sweep_json(const SweepResult& result) {
  nlohmann::json axes = nlohmann::json::array();
  for (const auto& axis : result.axes) axes.push_back({{"field", axis.path}, {"values", axis.texts}});
  nlohmann::json points = nlohmann::json::array();
  for (const auto& p : result.points) {
    nlohmann::json entry = nlohmann::json::object();
    for (std::size_t a = 0; a < result.axes.size(); ++a) entry[result.axes[a].path] = p.values[a];
    if (!p.invalid.empty()) {
      entry["invalid"] = p.invalid;
    } else {
      const auto& r = p.report;
      entry.update({{"dp", r.dp},
                    {"micro_batches", r.micro_batches},
                    {"step_time_s", r.step_time_s},
                    {"tokens_per_s", r.tokens_per_s},
                    {"model_tflops_per_gpu", r.model_tflops_per_gpu},
                    {"mfu", r.mfu},
                    {"comm_ratio", r.comm_ratio},
                    {"exposed_comm_s", r.breakdown.exposed_comm_s.total()},
                    {"bubble_s", r.breakdown.bubble_s},
                    {"memory_gib_per_gpu", r.memory_gib_per_gpu.total},
                    {"fits_memory", r.fits_memory}});
    }
    points.push_back(std::move(entry));
  }
  return nlohmann::json{{"model", result.model}, {"axes", axes}, {"points", points}};
}

}  // namespace ctwin::api
