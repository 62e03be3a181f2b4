#include "ctwin/calibration/megatron_log.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <string_view>

#include "ctwin/core/error.hpp"

namespace ctwin::calibration {
namespace {

// The number after `label` on `line` (spaces skipped), or nullopt when the label is absent.
// A label present with no number after it is an error: the line is an iteration line, damaged.
std::optional<double> megatron_figure(std::string_view line, std::string_view label, const std::string& where) {
  const auto at = line.find(label);
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view rest = line.substr(at + label.size());
  while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
  double value = 0;
  const auto [end, error] = std::from_chars(rest.data(), rest.data() + rest.size(), value);
  if (error != std::errc() || end == rest.data() || !std::isfinite(value) || value <= 0) {
    throw InputError(where, "", "'" + std::string(label) + "' is not followed by a positive number");
  }
  return value;
}

double median_of(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

}  // namespace

MegatronLog parse_megatron_log(const std::string& text, const std::string& source) {
  MegatronLog log;
  std::size_t start = 0;
  std::int64_t line_number = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    const std::string_view line(text.data() + start, end - start);
    ++line_number;
    start = end + 1;
    constexpr std::string_view kElapsed = "elapsed time per iteration (ms):";
    if (line.find(kElapsed) == std::string_view::npos) {
      if (!line.empty()) ++log.skipped_lines;
      if (end == text.size()) break;
      continue;
    }
    const std::string where = source + ":" + std::to_string(line_number);
    MegatronIteration it;
    it.elapsed_ms = *megatron_figure(line, kElapsed, where);
    const auto iteration = megatron_figure(line, "iteration ", where);
    if (!iteration || *iteration != std::floor(*iteration)) {
      throw InputError(where, "", "an 'elapsed time per iteration' line without its iteration number");
    }
    it.iteration = static_cast<std::int64_t>(*iteration);
    it.tflops_per_gpu = megatron_figure(line, "throughput per GPU (TFLOP/s/GPU):", where);
    if (const auto batch = megatron_figure(line, "global batch size:", where)) {
      it.global_batch = static_cast<std::int64_t>(*batch);
    }
    log.iterations.push_back(it);
    if (end == text.size()) break;
  }
  if (log.iterations.empty()) {
    throw InputError(source, "", "no Megatron-LM iteration line ('elapsed time per iteration (ms): ...') in the log");
  }
  return log;
}

MegatronMeasurement measure_megatron_log(const MegatronLog& log, std::int64_t warmup, const std::string& source) {
  std::vector<double> times, tflops;
  MegatronMeasurement m;
  for (const auto& it : log.iterations) {
    if (it.iteration <= warmup) continue;
    if (it.global_batch && m.global_batch && *it.global_batch != *m.global_batch) {
      throw InputError(source, "", "the global batch size changes after warm-up (" + std::to_string(*m.global_batch) +
                                       " then " + std::to_string(*it.global_batch) +
                                       " at iteration " + std::to_string(it.iteration) +
                                       "): raise warmup_iterations past the ramp-up");
    }
    if (it.global_batch) m.global_batch = it.global_batch;
    times.push_back(it.elapsed_ms / 1000);
    if (it.tflops_per_gpu) tflops.push_back(*it.tflops_per_gpu);
  }
  if (times.empty()) {
    throw InputError(source, "", "no iteration line after the " + std::to_string(warmup) +
                                     " warm-up iterations (the log ends at iteration " +
                                     std::to_string(log.iterations.back().iteration) + ")");
  }
  m.intervals = static_cast<std::int64_t>(times.size());
  m.step_time_s = median_of(times);
  if (!tflops.empty()) m.tflops_per_gpu = median_of(tflops);
  return m;
}

}  // namespace ctwin::calibration
