#include "ctwin/core/progress.hpp"

namespace ctwin {
namespace {

thread_local Progress* current_progress = nullptr;

}  // namespace

Progress* installed_progress() { return current_progress; }

ProgressScope::ProgressScope(Progress* progress) : previous_(current_progress) { current_progress = progress; }

ProgressScope::~ProgressScope() { current_progress = previous_; }

void count_events(std::uint64_t events) {
  if (current_progress != nullptr) current_progress->events.fetch_add(events, std::memory_order_relaxed);
}

void count_items(std::uint64_t total) {
  if (current_progress != nullptr) current_progress->total.fetch_add(total, std::memory_order_relaxed);
}

void count_done(std::uint64_t items) {
  if (current_progress != nullptr) current_progress->done.fetch_add(items, std::memory_order_relaxed);
}

void count_tasks(std::uint64_t total) {
  if (current_progress != nullptr) current_progress->tasks_total.fetch_add(total, std::memory_order_relaxed);
}

void count_task_done() {
  if (current_progress != nullptr) current_progress->tasks_done.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace ctwin
