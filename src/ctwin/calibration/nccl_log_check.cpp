#include "ctwin/calibration/nccl_log_check.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "ctwin/core/error.hpp"

namespace ctwin::calibration {
namespace {

// Slack for binary floating point on top of the printed rounding.
constexpr double kRelativeSlack = 1e-9;

void check(const NcclRow& row, const NcclTiming& timing, const char* group, double factor,
           std::vector<NcclInconsistency>& found) {
  const double time_us = timing.time_us;
  const double half_time = timing.step.time_us / 2;
  // A time printed as 0 (or within half a step of it) bounds algbw by nothing.
  if (time_us > half_time) {
    const double expected = static_cast<double>(row.size.count()) / time_us * 1e-3;  // B/us -> GB/s
    const double tolerance = timing.step.algbw_GBps / 2 + expected * half_time / (time_us - half_time) +
                             kRelativeSlack * expected;
    if (std::abs(timing.algbw_GBps - expected) > tolerance) {
      found.push_back({row.line, group, "algbw", timing.algbw_GBps, expected, tolerance});
    }
  }
  // nccl-tests multiplies the unrounded algbw, so the printed algbw's rounding carries over.
  const double expected = timing.algbw_GBps * factor;
  const double tolerance = factor * timing.step.algbw_GBps / 2 + timing.step.busbw_GBps / 2 + kRelativeSlack * expected;
  if (std::abs(timing.busbw_GBps - expected) > tolerance) {
    found.push_back({row.line, group, "busbw", timing.busbw_GBps, expected, tolerance});
  }
}

}  // namespace

std::vector<NcclInconsistency> find_inconsistencies(const NcclLog& log, NcclOp op, int ranks) {
  const double factor = collectives::busbw_factor(op, ranks);
  std::vector<NcclInconsistency> found;
  for (const NcclRow& row : log.rows) {
    check(row, row.out_of_place, "out-of-place", factor, found);
    if (row.in_place) check(row, *row.in_place, "in-place", factor, found);
  }
  return found;
}

void require_consistent(const NcclLog& log, NcclOp op, int ranks) {
  const std::vector<NcclInconsistency> found = find_inconsistencies(log, op, ranks);
  if (found.empty()) return;
  const NcclInconsistency& first = found.front();
  char figures[160];
  std::snprintf(figures, sizeof figures, "%s %s %g GB/s, expected %g +- %g", first.group.c_str(),
                first.field.c_str(), first.printed, first.expected, first.tolerance);
  const std::string rule = first.field == "algbw"
                               ? std::string("size / time")
                               : "algbw x " + std::string(collectives::name(op)) + " factor for " + std::to_string(ranks) + " ranks";
  throw InputError(log.source, "line " + std::to_string(first.line),
                   std::string(figures) + " (" + rule + "); " + std::to_string(found.size()) +
                       " inconsistent figure(s): not an unedited nccl-tests log for this op and rank count");
}

void require_fit_ready(const NcclLog& log, NcclOp op, int ranks) {
  if (ranks < 1) throw InputError(log.source, "", "a log needs at least 1 rank, got " + std::to_string(ranks));
  if (log.ranks && *log.ranks != ranks) {
    throw InputError(log.source, "", "lists " + std::to_string(*log.ranks) + " ranks ('#  Rank' lines) but is read as " +
                                         std::to_string(ranks) + " (FILE@N or --gpus)");
  }
  // Logs made in memory (the twin's own predictions, in tests) have no printed digits to check.
  const bool printed = std::all_of(log.rows.begin(), log.rows.end(),
                                   [](const NcclRow& row) { return row.out_of_place.step.time_us > 0; });
  if (printed) require_consistent(log, op, ranks);
}

}  // namespace ctwin::calibration
