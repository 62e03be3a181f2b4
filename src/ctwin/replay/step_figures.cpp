#include "ctwin/replay/step_figures.hpp"

#include <cmath>
#include <cstdio>
#include <limits>
#include <type_traits>

#include "ctwin/core/error.hpp"

namespace ctwin::replay {
namespace {

constexpr Figure kEveryFigure[] = {
    Figure::kDp,        Figure::kMicroBatches,      Figure::kStepTime,          Figure::kTokensPerS,
    Figure::kTokensPerSPerGpu, Figure::kModelTflopsPerGpu, Figure::kHardwareTflopsPerGpu, Figure::kMfu,
    Figure::kCommRatio, Figure::kExposedComm,       Figure::kBubble,            Figure::kExposedIo,
    Figure::kMemoryTotal, Figure::kFitsMemory};
static_assert(sizeof kEveryFigure / sizeof kEveryFigure[0] == kFigureCount, "every figure is listed once");

// The one place a figure meets its member: `visit` gets the member (std::int64_t, double or bool).
template <typename Figures, typename Visit>
void visit_step_figure(Figures& f, Figure figure, Visit&& visit) {
  switch (figure) {
    case Figure::kDp: return visit(f.dp);
    case Figure::kMicroBatches: return visit(f.micro_batches);
    case Figure::kStepTime: return visit(f.step_time_s);
    case Figure::kTokensPerS: return visit(f.tokens_per_s);
    case Figure::kTokensPerSPerGpu: return visit(f.tokens_per_s_per_gpu);
    case Figure::kModelTflopsPerGpu: return visit(f.model_tflops_per_gpu);
    case Figure::kHardwareTflopsPerGpu: return visit(f.hardware_tflops_per_gpu);
    case Figure::kMfu: return visit(f.mfu);
    case Figure::kCommRatio: return visit(f.comm_ratio);
    case Figure::kExposedComm: return visit(f.exposed_comm_s);
    case Figure::kBubble: return visit(f.bubble_s);
    case Figure::kExposedIo: return visit(f.exposed_io_s);
    case Figure::kMemoryTotal: return visit(f.memory_gib_per_gpu);
    case Figure::kFitsMemory: return visit(f.fits_memory);
  }
  CTWIN_ASSERT(false, "a figure without a member");
}

struct FigureRange {
  double low = 0;
  double high = std::numeric_limits<double>::max();
  bool low_open = false;
};

// What a run can report (replay::check_step_report); the parts of a step within the step.
FigureRange range_of(Figure figure, const StepFigures& read, bool step_read) {
  const double step = step_read ? read.step_time_s : std::numeric_limits<double>::max();
  switch (figure) {
    case Figure::kDp:
    case Figure::kMicroBatches: return {1, std::numeric_limits<double>::max(), false};
    case Figure::kStepTime:
    case Figure::kTokensPerS:
    case Figure::kTokensPerSPerGpu: return {0, std::numeric_limits<double>::max(), true};
    case Figure::kMfu:
    case Figure::kCommRatio: return {0, 1, false};
    case Figure::kExposedComm:
    case Figure::kBubble:
    case Figure::kExposedIo: return {0, step, false};
    default: return {};
  }
}

}  // namespace

const char* figure_name(Figure figure) {
  switch (figure) {
    case Figure::kDp: return "dp";
    case Figure::kMicroBatches: return "micro_batches";
    case Figure::kStepTime: return "step_time_s";
    case Figure::kTokensPerS: return "tokens_per_s";
    case Figure::kTokensPerSPerGpu: return "tokens_per_s_per_gpu";
    case Figure::kModelTflopsPerGpu: return "model_tflops_per_gpu";
    case Figure::kHardwareTflopsPerGpu: return "hardware_tflops_per_gpu";
    case Figure::kMfu: return "mfu";
    case Figure::kCommRatio: return "comm_ratio";
    case Figure::kExposedComm: return "exposed_comm_s";
    case Figure::kBubble: return "bubble_s";
    case Figure::kExposedIo: return "exposed_io_s";
    case Figure::kMemoryTotal: return "memory_gib_per_gpu";
    case Figure::kFitsMemory: return "fits_memory";
  }
  CTWIN_ASSERT(false, "a figure without a name");
  return "";
}

StepFigures figures_of(const StepReport& r) {
  StepFigures f;
  f.dp = r.dp;
  f.micro_batches = r.micro_batches;
  f.step_time_s = r.step_time_s;
  f.tokens_per_s = r.tokens_per_s;
  f.model_tflops_per_gpu = r.model_tflops_per_gpu;
  f.hardware_tflops_per_gpu = r.hardware_tflops_per_gpu;
  f.mfu = r.mfu;
  f.comm_ratio = r.comm_ratio;
  f.exposed_comm_s = r.breakdown.exposed_comm_s.total();
  f.bubble_s = r.breakdown.bubble_s;
  f.exposed_io_s = r.breakdown.exposed_io_s;
  f.memory_gib_per_gpu = r.memory_gib_per_gpu.total;
  f.fits_memory = r.fits_memory;
  return f;
}

nlohmann::json to_json(const StepFigures& figures, FigureSet set) {
  nlohmann::json out = nlohmann::json::object();
  for (const Figure figure : kEveryFigure) {
    if (!set.has(figure)) continue;
    visit_step_figure(figures, figure, [&](const auto& value) { out[figure_name(figure)] = value; });
  }
  return out;
}

StepFigures figures_from_json(const nlohmann::json& object, FigureSet set, const std::string& source,
                              const std::string& pointer, const std::string& document) {
  StepFigures f;
  for (const Figure figure : kEveryFigure) {
    if (!set.has(figure)) continue;
    const char* name = figure_name(figure);
    if (!object.is_object() || !object.contains(name)) {
      throw InputError(source, pointer, "not " + document + " (no '" + name + "')");
    }
    visit_step_figure(f, figure, [&](auto& member) {
      try {
        member = object[name].get<std::remove_reference_t<decltype(member)>>();
      } catch (const nlohmann::json::exception&) {
        throw InputError(source, pointer + "/" + name, "not " + document + " (a value of the wrong type)");
      }
    });
  }
  // Ranges after reading, since the parts of a step are bounded by the step read with them.
  for (const Figure figure : kEveryFigure) {
    if (!set.has(figure) || figure == Figure::kFitsMemory) continue;
    const FigureRange range = range_of(figure, f, set.has(Figure::kStepTime));
    visit_step_figure(f, figure, [&](const auto& member) {
      check_reported_figure(static_cast<double>(member), range.low, range.high, range.low_open, source,
                            pointer + "/" + figure_name(figure));
    });
  }
  return f;
}

void check_reported_figure(double value, double low, double high, bool low_open, const std::string& source,
                           const std::string& pointer) {
  if (std::isfinite(value) && (low_open ? value > low : value >= low) && value <= high) return;
  char text[160];
  std::snprintf(text, sizeof text, "is %g, outside %s%g, %g]: not what a run reports (an edited or damaged shard)",
                value, low_open ? "(" : "[", low, high);
  throw InputError(source, pointer, text);
}

}  // namespace ctwin::replay
