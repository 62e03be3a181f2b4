#pragma once
// The plan's progress line: "[analytical 1200/5400] 850.0 candidates/s, 5 s left", one line per
// phase, each closed when the next phase starts or the plan ends, so that nothing printed after
// it (the next phase, the results' title) is glued to an open line. A phase whose count is not
// known in advance (the bounded analytical phase replays until the bound prunes the rest) shows
// what is done and its rate, without a total or a time left. The text is built here and written by
// the caller, so that a test can read it without a terminal.

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>

namespace ctwin::cli {

class PhaseProgress {
 public:
  using Clock = std::chrono::steady_clock;

  explicit PhaseProgress(Clock::time_point start) : start_(start), phase_start_(start), last_(start) {}

  /// What to write for one finished candidate of `phase`; nothing in the first second unless the
  /// phase is done. `total` 0: not known in advance.
  [[nodiscard]] std::optional<std::string> update(const std::string& phase, std::size_t done, std::size_t total,
                                                  Clock::time_point now);
  /// What ends an open line when the work is over; empty when none is open.
  [[nodiscard]] std::string finish();

 private:
  Clock::time_point start_;
  Clock::time_point phase_start_;  ///< when the phase began: the previous phase's last report, or the start
  Clock::time_point last_;
  std::string phase_;
  bool open_ = false;
};

}  // namespace ctwin::cli
