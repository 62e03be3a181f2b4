#pragma once
// How far a long computation is, for a front end to show (a progress line on a terminal, a
// bar in a notebook). As with the interrupt flag, the caller owns a Progress and installs it
// on the computing thread; the engine adds the events it simulates, and loops over known work
// (the sizes of a collective sweep) say how many items there are and how many are done.
// Nothing here prints, and nothing a result contains depends on it.

#include <atomic>
#include <cstdint>

namespace ctwin {

struct Progress {
  std::atomic<std::uint64_t> events{0};  ///< simulated so far (counted in batches)
  std::atomic<std::uint64_t> done{0};    ///< items finished, when the work has items
  std::atomic<std::uint64_t> total{0};   ///< items in all; 0 when unknown
  /// A step replay's pipeline tasks (a rank's forward or backward of one micro-batch and chunk,
  /// and its optimizer step): known when the replay starts, so a front end can say how long is
  /// left. Kept apart from items, which count what the user asked for.
  std::atomic<std::uint64_t> tasks_done{0};
  std::atomic<std::uint64_t> tasks_total{0};
};

/// The Progress installed on this thread, or null.
[[nodiscard]] Progress* installed_progress();

/// Installs `progress` on this thread for the scope's lifetime (null: none), restoring the previous one after.
class ProgressScope {
 public:
  explicit ProgressScope(Progress* progress);
  ~ProgressScope();
  ProgressScope(const ProgressScope&) = delete;
  ProgressScope& operator=(const ProgressScope&) = delete;

 private:
  Progress* previous_;
};

/// Adds to the installed Progress, if any: a thread-local load otherwise.
void count_events(std::uint64_t events);
void count_items(std::uint64_t total);
void count_done(std::uint64_t items = 1);
void count_tasks(std::uint64_t total);
void count_task_done();

}  // namespace ctwin
