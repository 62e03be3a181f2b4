#include "ctwin/replay/degrade.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "ctwin/core/error.hpp"
#include "ctwin/core/limits.hpp"

namespace ctwin::replay {

GpuSlowdown parse_gpu_slowdown(const std::string& text, const std::string& flag, std::int64_t gpus) {
  const auto bad = [&](const std::string& why) {
    return InputError(flag, "", "'" + text + "': " + why + " (expected gpu:RANK=SPEED or hbm:RANK=SHARE, e.g. gpu:123=0.8)");
  };
  const bool hbm = text.rfind("hbm:", 0) == 0;
  if (text.rfind("gpu:", 0) != 0 && !hbm) throw bad("not a GPU or its HBM");
  const std::size_t equals = text.find('=');
  if (equals == std::string::npos) throw bad("no '='");
  GpuSlowdown s;
  const char* begin = text.data() + 4;
  const char* middle = text.data() + equals;
  const auto [rank_end, rank_error] = std::from_chars(begin, middle, s.gpu);
  if (rank_error != std::errc() || rank_end != middle) throw bad("the GPU rank is not a whole number");
  const char* end = text.data() + text.size();
  double share = 1;
  const auto [speed_end, speed_error] = std::from_chars(middle + 1, end, share);
  if (speed_error != std::errc() || speed_end != end || !std::isfinite(share)) throw bad("the share is not a number");
  if (const auto problem = limits::degraded_share_problem(share)) throw bad(*problem);
  if (s.gpu < 0 || s.gpu >= gpus) throw bad("the job has GPUs 0 to " + std::to_string(gpus - 1));
  (hbm ? s.hbm : s.speed) = share;
  return s;
}

void apply_slowdowns(StepWork& work, const std::vector<GpuSlowdown>& slowdowns,
                     const std::map<double, StepWork>& slow_hbm) {
  std::vector<std::vector<GpuSlowdown>> of_stage(work.stages.size());
  for (const auto& s : slowdowns) {
    const auto stage = static_cast<std::size_t>(s.gpu / work.stage_gpus);
    CTWIN_ASSERT(stage < of_stage.size(), "a slow GPU belongs to a stage of the job");
    if (s.speed < 1 || s.hbm < 1) of_stage[stage].push_back(s);
  }
  // The slowest GPU's time for each kernel; `pick` finds the same op in another build of the work.
  const auto scale = [&](std::vector<OpNode>& ops, const std::vector<GpuSlowdown>& slow, const auto& pick) {
    for (std::size_t k = 0; k < ops.size(); ++k) {
      if (ops[k].stream != Stream::kCompute) continue;
      double worst = 0;
      for (const auto& s : slow) {
        const SimTime base = s.hbm < 1 ? pick(slow_hbm.at(s.hbm))[k].duration : ops[k].duration;
        worst = std::max(worst, base.seconds() / s.speed);
      }
      ops[k].duration = SimTime::from_seconds(worst);
    }
  };
  for (std::size_t i = 0; i < work.stages.size(); ++i) {
    if (of_stage[i].empty()) continue;
    auto& stage = work.stages[i];
    for (std::size_t c = 0; c < stage.chunks.size(); ++c) {
      scale(stage.chunks[c].forward, of_stage[i], [&](const StepWork& w) -> const auto& { return w.stages[i].chunks[c].forward; });
      scale(stage.chunks[c].backward, of_stage[i], [&](const StepWork& w) -> const auto& { return w.stages[i].chunks[c].backward; });
    }
    scale(stage.after_backward, of_stage[i], [&](const StepWork& w) -> const auto& { return w.stages[i].after_backward; });
  }
}

}  // namespace ctwin::replay
