#pragma once
// A step's headline figures (step time, throughput, MFU, communication share ...) as every report
// writes them: `run`, `scale`, `plan`, `sweep`, `size`, `explain`, `goodput` and the `validate`
// commands. One struct, one JSON writer and one reader, so that a figure has one name and one
// range everywhere (docs/architecture.md, Stable interfaces).
//
// Each report carries its own subset, a FigureSet declared beside its writer: `sweep` prints the
// memory total, `plan` adds its own breakdown, `goodput` only the step time and throughput. The
// reader takes the same set, so a shard written with it reads back whole, and checks each figure
// against what a run can report (an edited shard printed a step of -5 s and an MFU of 750 %, issue 36).

#include <cstdint>
#include <initializer_list>
#include <string>

#include <nlohmann/json.hpp>

#include "ctwin/replay/step_report.hpp"

namespace ctwin::replay {

/// One field of StepFigures; its JSON name is figure_name().
enum class Figure : std::uint8_t {
  kDp,                    ///< "dp"
  kMicroBatches,          ///< "micro_batches"
  kStepTime,              ///< "step_time_s"
  kTokensPerS,            ///< "tokens_per_s"
  kTokensPerSPerGpu,      ///< "tokens_per_s_per_gpu"
  kModelTflopsPerGpu,     ///< "model_tflops_per_gpu"
  kHardwareTflopsPerGpu,  ///< "hardware_tflops_per_gpu"
  kMfu,                   ///< "mfu"
  kCommRatio,             ///< "comm_ratio"
  kExposedComm,           ///< "exposed_comm_s": every kind's, summed
  kBubble,                ///< "bubble_s"
  kExposedIo,             ///< "exposed_io_s"
  kMemoryTotal,           ///< "memory_gib_per_gpu": the worst pipeline stage's total
  kFitsMemory,            ///< "fits_memory"
};
inline constexpr int kFigureCount = static_cast<int>(Figure::kFitsMemory) + 1;

/// Which figures a report carries.
class FigureSet {
 public:
  constexpr FigureSet(std::initializer_list<Figure> figures) {
    for (const Figure f : figures) bits_ |= 1U << static_cast<unsigned>(f);
  }
  [[nodiscard]] constexpr bool has(Figure f) const { return ((bits_ >> static_cast<unsigned>(f)) & 1U) != 0; }

 private:
  std::uint32_t bits_ = 0;
};

struct StepFigures {
  std::int64_t dp = 0;
  std::int64_t micro_batches = 0;
  double step_time_s = 0;
  double tokens_per_s = 0;
  double tokens_per_s_per_gpu = 0;  ///< set by whoever knows the GPU count (figures_of does not)
  double model_tflops_per_gpu = 0;
  double hardware_tflops_per_gpu = 0;
  double mfu = 0;
  double comm_ratio = 0;      ///< exposed communication / step
  double exposed_comm_s = 0;  ///< every kind's exposed communication
  double bubble_s = 0;
  double exposed_io_s = 0;
  double memory_gib_per_gpu = 0;  ///< the worst pipeline stage's total
  bool fits_memory = false;
};

/// The figure's key in every report.
[[nodiscard]] const char* figure_name(Figure figure);

/// The figures of a step's report (all but tokens_per_s_per_gpu).
[[nodiscard]] StepFigures figures_of(const StepReport& report);

/// The figures in `set` as a JSON object, under their figure_name()s.
[[nodiscard]] nlohmann::json to_json(const StepFigures& figures, FigureSet set);

/// The figures in `set` read back from `object` at `pointer` of file `source` (the others stay 0).
/// InputError naming the file when a figure is missing ("not <document> (no 'mfu')"), and naming
/// the figure's pointer when it has the wrong type ("not <document> (a value of the wrong type)")
/// or a value no run reports (a step of 0 s or
/// less, an MFU or communication share outside [0, 1], a bubble longer than the step, dp below 1).
[[nodiscard]] StepFigures figures_from_json(const nlohmann::json& object, FigureSet set, const std::string& source,
                                            const std::string& pointer, const std::string& document);

/// InputError naming `pointer` unless `value` is finite and within [low, high] ((low, high] when
/// `low_open`): a figure read back from a file that no run reports.
void check_reported_figure(double value, double low, double high, bool low_open, const std::string& source,
                           const std::string& pointer);

}  // namespace ctwin::replay
