#include "ctwin/replay/degrade.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "ctwin/core/error.hpp"

namespace ctwin::replay {

GpuSlowdown parse_gpu_slowdown(const std::string& text, const std::string& flag, std::int64_t gpus) {
  const auto bad = [&](const std::string& why) {
    return InputError(flag, "", "'" + text + "': " + why + " (expected gpu:RANK=SPEED, e.g. gpu:123=0.8)");
  };
  if (text.rfind("gpu:", 0) != 0) throw bad("only GPUs can be degraded so far");
  const std::size_t equals = text.find('=');
  if (equals == std::string::npos) throw bad("no '='");
  GpuSlowdown s;
  const char* begin = text.data() + 4;
  const char* middle = text.data() + equals;
  const auto [rank_end, rank_error] = std::from_chars(begin, middle, s.gpu);
  if (rank_error != std::errc() || rank_end != middle) throw bad("the GPU rank is not a whole number");
  const char* end = text.data() + text.size();
  const auto [speed_end, speed_error] = std::from_chars(middle + 1, end, s.speed);
  if (speed_error != std::errc() || speed_end != end || !std::isfinite(s.speed)) throw bad("the speed is not a number");
  if (!(s.speed > 0 && s.speed <= 1)) throw bad("the speed is a fraction of the nominal one, in (0, 1]");
  if (s.gpu < 0 || s.gpu >= gpus) throw bad("the job has GPUs 0 to " + std::to_string(gpus - 1));
  return s;
}

void apply_slowdowns(StepWork& work, const std::vector<GpuSlowdown>& slowdowns) {
  std::vector<double> speed(work.stages.size(), 1.0);
  for (const auto& s : slowdowns) {
    const auto stage = static_cast<std::size_t>(s.gpu / work.stage_gpus);
    CTWIN_ASSERT(stage < speed.size(), "a slow GPU belongs to a stage of the job");
    speed[stage] = std::min(speed[stage], s.speed);
  }
  const auto scale = [](std::vector<OpNode>& ops, double factor) {
    for (auto& op : ops) {
      if (op.stream == Stream::kCompute) op.duration = SimTime::from_seconds(op.duration.seconds() / factor);
    }
  };
  for (std::size_t i = 0; i < work.stages.size(); ++i) {
    if (speed[i] == 1.0) continue;
    for (auto& chunk : work.stages[i].chunks) {
      scale(chunk.forward, speed[i]);
      scale(chunk.backward, speed[i]);
    }
    scale(work.stages[i].after_backward, speed[i]);
  }
}

}  // namespace ctwin::replay
