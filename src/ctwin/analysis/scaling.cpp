#include "ctwin/analysis/scaling.hpp"

#include <algorithm>
#include <mutex>

#include "ctwin/core/error.hpp"
#include "ctwin/core/parallel_for.hpp"
#include "ctwin/replay/scenario.hpp"
#include "ctwin/replay/training_step.hpp"

namespace ctwin::analysis {

ScalingStudy run_scaling(const ScalingQuery& query) {
  if (query.gpus.empty()) throw InputError("--gpus", "", "give at least one size, e.g. 8,64,512");
  for (std::size_t i = 0; i < query.gpus.size(); ++i) {
    if (query.gpus[i] < 1) throw InputError("--gpus", "", "sizes must be positive");
    if (i > 0 && query.gpus[i] <= query.gpus[i - 1]) throw InputError("--gpus", "", "sizes must be ascending");
  }
  const auto load = [&query](const std::vector<std::string>& size_overrides) {
    if (query.load) return query.load(size_overrides);
    std::vector<std::string> overrides = query.overrides;
    overrides.insert(overrides.end(), size_overrides.begin(), size_overrides.end());
    return replay::load_scenario(query.scenario, query.repo_root, overrides);
  };
  const auto simulate = [&query](const replay::Scenario& scenario) {
    return query.simulate ? query.simulate(scenario) : replay::simulate_step(scenario).report;
  };
  // The job as written: its global batch and GPU count anchor weak scaling.
  const replay::Scenario base = load({});

  ScalingStudy study;
  study.model = base.model.name;
  study.points.resize(query.gpus.size());
  std::mutex progress_mutex;
  std::size_t done = 0;
  const auto report_progress = [&](std::int64_t gpus) {
    if (!query.progress) return;
    const std::lock_guard lock(progress_mutex);
    query.progress(done++, query.gpus.size(), gpus);
  };
  parallel_for(query.gpus.size(), query.jobs, [&](std::size_t i) {
    const std::int64_t gpus = query.gpus[i];
    ScalingPoint& point = study.points[i];
    point.gpus = gpus;
    point.global_batch = base.split.global_batch;
    std::vector<std::string> overrides;
    overrides.push_back("gpus=" + std::to_string(gpus));
    overrides.push_back("parallel.dp=auto");
    if (query.weak) {
      const std::int64_t scaled = base.split.global_batch * gpus;
      if (scaled % base.gpus != 0) {
        point.invalid = "the global batch " + std::to_string(base.split.global_batch) + " × " + std::to_string(gpus) +
                        " / " + std::to_string(base.gpus) + " GPUs is not whole";
        report_progress(gpus);
        return;
      }
      point.global_batch = scaled / base.gpus;
      overrides.push_back("training.global_batch=" + std::to_string(point.global_batch));
    }
    try {
      point.report = simulate(load(overrides));
    } catch (const InputError& error) {
      // The split cannot use this many GPUs: a fact about the size, reported with the reason.
      point.invalid = std::string(error.what());
    }
    report_progress(gpus);
  });

  const auto first = std::find_if(study.points.begin(), study.points.end(), [](const ScalingPoint& p) { return p.invalid.empty(); });
  if (first == study.points.end()) {
    throw InputError("--gpus", "", "no size can run this split: " + study.points.front().invalid);
  }
  for (auto& point : study.points) {
    if (!point.invalid.empty()) continue;
    const double ratio = static_cast<double>(point.gpus) / static_cast<double>(first->gpus);
    point.linearity = point.report.tokens_per_s / (first->report.tokens_per_s * ratio);
  }
  return study;
}

}  // namespace ctwin::analysis
