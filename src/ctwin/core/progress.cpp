#include "ctwin/core/progress.hpp"

namespace ctwin {
namespace {

thread_local Progress* installed = nullptr;

}  // namespace

Progress* installed_progress() { return installed; }

ProgressScope::ProgressScope(Progress* progress) : previous_(installed) { installed = progress; }

ProgressScope::~ProgressScope() { installed = previous_; }

void count_events(std::uint64_t events) {
  if (installed != nullptr) installed->events.fetch_add(events, std::memory_order_relaxed);
}

void count_items(std::uint64_t total) {
  if (installed != nullptr) installed->total.fetch_add(total, std::memory_order_relaxed);
}

void count_done(std::uint64_t items) {
  if (installed != nullptr) installed->done.fetch_add(items, std::memory_order_relaxed);
}

}  // namespace ctwin
