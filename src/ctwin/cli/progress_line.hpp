#pragma once
// A progress line on stderr while a command works past a second: what is simulated, how far
// (items done of all, when the work has items; the share of a step's pipeline tasks, when it
// replays a step), events simulated and their rate, and the time left where a share is known. Shown only
// when stderr is a terminal, so pipes and logs get nothing; cleared when the work ends.

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "ctwin/core/progress.hpp"

namespace ctwin::cli {

/// What the line shows, read from a Progress at one moment.
struct ProgressReading {
  double elapsed_s = 0;
  std::uint64_t events = 0;
  std::uint64_t done = 0, total = 0;              ///< items (shown when the work counts items)
  std::uint64_t tasks_done = 0, tasks_total = 0;  ///< a step replay's pipeline tasks
};

/// "simulating one step of s.json: 12.3 M events (2.1 M events/s), 6 s, 40 % of the step's
/// tasks, about 9 s left": the time left is the elapsed time scaled by the share of tasks (or
/// items) still to do, so it assumes the rest goes at the pace so far. No time left before the
/// first task is done. Without the terminal's carriage return, for a test to read.
[[nodiscard]] std::string progress_text(const std::string& what, bool items, const ProgressReading& reading);

class ProgressLine {
 public:
  /// Installs a Progress on this thread and, on a terminal, starts the line's ticker. `items`:
  /// the work counts items the user asked for (a sweep's sizes), worth showing as done/total.
  explicit ProgressLine(std::string what, bool items = false);
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

 private:
  void tick();

  std::string what_;
  bool items_ = false;
  Progress progress_;
  ProgressScope scope_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  bool shown_ = false;
  std::thread ticker_;
};

/// For work counted in items (a sweep's points, a size study's build options): a callback that
/// prints "[12/64] points, 3.1/s, 17 s left" on stderr once the work passes a second, on a
/// terminal only; empty (nothing printed) when stderr is a pipe.
[[nodiscard]] std::function<void(std::size_t, std::size_t)> item_progress(std::string items);

/// "12.3 M" style counts for the line ("850" below a thousand).
[[nodiscard]] std::string short_count(double value);

}  // namespace ctwin::cli
