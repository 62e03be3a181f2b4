#include "ctwin/replay/step_report.hpp"

#include <algorithm>
#include <array>
#include <vector>

#include "ctwin/core/error.hpp"
#include "ctwin/core/limits.hpp"
#include "ctwin/replay/node_pool.hpp"
#include "ctwin/replay/step_figures.hpp"
#include "ctwin/workload/flops.hpp"
#include "ctwin/workload/memory_model.hpp"

namespace ctwin::replay {
namespace {

// Categories in attribution order: compute, optimizer, then communication by priority.
enum Category { kCompute, kOptimizer, kTp, kCp, kEp, kPp, kDp, kCategories };

Category category_of(const BusyInterval& b) {
  if (b.optimizer) return kOptimizer;
  switch (b.stream) {
    case Stream::kCompute: return kCompute;
    case Stream::kTp: return kTp;
    case Stream::kCp: return kCp;
    case Stream::kEp: return kEp;
    case Stream::kPp: return kPp;
    case Stream::kDp: return kDp;
  }
  return kCompute;
}

double gib(Bytes b) { return static_cast<double>(b.count()) / static_cast<double>(std::int64_t{1} << 30); }

}  // namespace

StepBreakdown breakdown_of(const ReplayResult& replay) {
  StepBreakdown sum;
  if (replay.ranks.empty()) return sum;
  struct Span {
    std::int64_t start, end;
    int category;
  };
  std::vector<Span> sorted;
  for (const auto& rank : replay.ranks) {
    // Each segment of time counts for the first category (in attribution order) busy in it, so
    // category c gets |busy in 0..c| − |busy in 0..c−1|: unions measured in one pass each over
    // the intervals in start order, in integer picoseconds.
    sorted.clear();
    for (const auto& b : rank.busy) sorted.push_back({b.start.ps(), b.end.ps(), category_of(b)});
    const auto by_start = [](const Span& a, const Span& b) { return a.start < b.start; };
    if (!std::is_sorted(sorted.begin(), sorted.end(), by_start)) std::sort(sorted.begin(), sorted.end(), by_start);
    std::array<std::int64_t, kCategories> spent{};
    std::int64_t covered_before = 0;  // |busy in 0..c−1|
    for (int c = 0; c < kCategories; ++c) {
      std::int64_t covered = 0, open_start = 0, open_end = 0;
      bool open = false;
      for (const Span& b : sorted) {
        if (b.category > c) continue;
        const std::int64_t start = b.start, end = b.end;
        if (open && start <= open_end) {
          open_end = std::max(open_end, end);
          continue;
        }
        if (open) covered += open_end - open_start;
        open = true;
        open_start = start;
        open_end = end;
      }
      if (open) covered += open_end - open_start;
      spent[static_cast<std::size_t>(c)] = covered - covered_before;
      covered_before = covered;
    }
    std::int64_t busy = 0;
    for (auto s : spent) busy += s;
    const auto sec = [](std::int64_t ps) { return static_cast<double>(ps) * 1e-12; };
    sum.compute_s += sec(spent[kCompute]);
    sum.optimizer_s += sec(spent[kOptimizer]);
    sum.exposed_comm_s.tp += sec(spent[kTp]);
    sum.exposed_comm_s.cp += sec(spent[kCp]);
    sum.exposed_comm_s.ep += sec(spent[kEp]);
    sum.exposed_comm_s.pp += sec(spent[kPp]);
    sum.exposed_comm_s.dp += sec(spent[kDp]);
    sum.bubble_s += sec(replay.step_time.ps() - busy);
  }
  const double n = static_cast<double>(replay.ranks.size());
  StepBreakdown mean = sum;
  mean.compute_s /= n;
  mean.optimizer_s /= n;
  mean.bubble_s /= n;
  for (double* x : {&mean.exposed_comm_s.tp, &mean.exposed_comm_s.pp, &mean.exposed_comm_s.dp, &mean.exposed_comm_s.cp,
                    &mean.exposed_comm_s.ep}) {
    *x /= n;
  }
  return mean;
}

StepReport make_step_report(const Scenario& scenario, const ReplayResult& replay, std::optional<double> fabric_read_s) {
  StepReport r;
  double step = replay.step_time.seconds();
  if (scenario.data) {
    r.data_pipeline = time_data_pipeline(*scenario.data, scenario.cluster, scenario.gpus, scenario.split.pp,
                                         scenario.split.global_batch, step, fabric_read_s);
    step += r.data_pipeline->exposed_s;
  }
  const double gpus = static_cast<double>(scenario.gpus);
  const auto flops = workload::step_flops(scenario.model, scenario.split);
  r.step_time_s = step;
  r.model_flops_per_step = flops.model.count();
  r.hardware_flops_per_step = flops.hardware.count();
  r.tokens_per_s = static_cast<double>(flops.tokens) / step;
  r.model_tflops_per_gpu = flops.model.count() / step / gpus * 1e-12;
  r.hardware_tflops_per_gpu = flops.hardware.count() / step / gpus * 1e-12;
  const compute::Dtype dtype = scenario.split.precision == workload::Precision::kFp8   ? compute::Dtype::kFp8
                               : scenario.split.precision == workload::Precision::kFp16 ? compute::Dtype::kFp16
                                                                                         : compute::Dtype::kBf16;
  r.mfu = scenario.pool.groups.empty() ? flops.model.count() / (step * gpus * scenario.gpu.peak(dtype).per_second())
                                       : flops.model.count() / (step * pool_peak(scenario, dtype));
  r.breakdown = breakdown_of(replay);
  if (r.data_pipeline) r.breakdown.exposed_io_s = r.data_pipeline->exposed_s;
  r.comm_ratio = r.breakdown.exposed_comm_s.total() / step;
  workload::MemoryOptions memory_options;
  memory_options.flash_attention = scenario.split.flash_attention;
  memory_options.fp32_gradients = scenario.split.grad_reduce_in_fp32;
  const auto stages = workload::memory_per_stage(scenario.model, scenario.split, scenario.gpus, memory_options);
  for (const auto& stage : stages) r.memory_total_gib_per_stage.push_back(gib(stage.total()));
  const auto& memory = workload::worst_stage(stages);
  r.memory_gib_per_gpu = {gib(memory.weights),     gib(memory.gradients), gib(memory.optimizer), gib(memory.activations),
                          gib(memory.fp8_buffers + memory.overhead), gib(memory.total())};
  r.memory_stage = memory.stage;
  // A pool's stages against their own groups' GPUs.
  r.fits_memory = scenario.pool.groups.empty() ? workload::fits_memory(memory, scenario.gpu)
                                               : pool_fits_memory(scenario, stages);
  r.micro_batches = scenario.split.micro_batches(scenario.gpus);
  r.dp = scenario.split.data_parallel(scenario.gpus);
  r.events = replay.events;
  if (scenario.checkpoint) r.checkpoint = time_checkpoint(scenario, step);  // `flow` on the fabric: simulate_step
  check_step_report(r, scenario);
  return r;
}

void check_step_report(const StepReport& r, const Scenario& scenario) {
  const std::pair<const char*, double> fields[] = {
      {figure_name(Figure::kStepTime), r.step_time_s},
      {figure_name(Figure::kTokensPerS), r.tokens_per_s},
      {figure_name(Figure::kModelTflopsPerGpu), r.model_tflops_per_gpu},
      {figure_name(Figure::kHardwareTflopsPerGpu), r.hardware_tflops_per_gpu},
      {figure_name(Figure::kMfu), r.mfu},
      {figure_name(Figure::kCommRatio), r.comm_ratio},
      {"compute_s", r.breakdown.compute_s},
      {"exposed_comm_s.tp", r.breakdown.exposed_comm_s.tp}, {"exposed_comm_s.pp", r.breakdown.exposed_comm_s.pp},
      {"exposed_comm_s.dp", r.breakdown.exposed_comm_s.dp}, {"exposed_comm_s.cp", r.breakdown.exposed_comm_s.cp},
      {"exposed_comm_s.ep", r.breakdown.exposed_comm_s.ep}, {"bubble_s", r.breakdown.bubble_s},
      {"optimizer_s", r.breakdown.optimizer_s}, {"exposed_io_s", r.breakdown.exposed_io_s}, {"memory_gib_per_gpu.total", r.memory_gib_per_gpu.total}};
  for (const auto& [name, value] : fields) limits::require_finite_non_negative(value, name);
  if (const auto& c = r.checkpoint) {
    for (const double v : {c->size.bytes, c->save_s, c->stall_s, c->contention_s, c->amortised_s, c->load_s}) {
      limits::require_finite_non_negative(v, "checkpoint");
    }
  }
  CTWIN_ASSERT(r.step_time_s > 0, "a step takes time");
  // The model's FLOPs faster than the tensor cores' peak: only a GPU profile whose GEMM table
  // or time scale promises more than the hardware can (hand-edited, or fitted before
  // calibration refused such sweeps) gets here.
  if (r.mfu > 1) {
    throw InputError(scenario.source, "/gpu",
                     "the GPU profile '" + scenario.gpu.name + "' makes this step run at MFU " +
                         std::to_string(static_cast<int>(r.mfu * 100)) +
                         "%, above the peak: its GEMM efficiencies or training_time_scale are impossible");
  }
}

}  // namespace ctwin::replay
