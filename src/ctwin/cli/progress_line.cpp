#include "ctwin/cli/progress_line.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "ctwin/cli/output.hpp"

namespace ctwin::cli {

std::string short_count(double value) {
  if (value >= 1e9) return fixed(value / 1e9, 1) + " G";
  if (value >= 1e6) return fixed(value / 1e6, 1) + " M";
  if (value >= 1e3) return fixed(value / 1e3, 1) + " k";
  return fixed(value, 0);
}

std::function<void(std::size_t, std::size_t)> item_progress(std::string items) {
  if (isatty(fileno(stderr)) == 0) return {};
  const auto start = std::chrono::steady_clock::now();
  return [start, items = std::move(items)](std::size_t done, std::size_t total) {
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (elapsed < 1 && done < total) return;  // quiet for work that takes less than a second
    const double rate = static_cast<double>(done) / std::max(elapsed, 1e-9);
    std::cerr << "\r\033[K[" << done << "/" << total << "] " << items << ", " << fixed(rate, 1) << "/s, "
              << fixed(static_cast<double>(total - done) / rate, 0) << " s left" << std::flush;
    if (done == total) std::cerr << '\n';
  };
}

std::string progress_text(const std::string& what, bool items, const ProgressReading& reading) {
  const double elapsed = std::max(reading.elapsed_s, 1e-9);
  const auto events = static_cast<double>(reading.events);
  std::string line = what + ": ";
  if (items && reading.total > 0) line += std::to_string(reading.done) + "/" + std::to_string(reading.total) + ", ";
  line += short_count(events) + " events (" + short_count(events / elapsed) + " events/s), " + fixed(reading.elapsed_s, 0) + " s";
  // The share done: a step's tasks when a replay counted them, else the items asked for.
  double share = -1;
  if (reading.tasks_total > 0) {
    share = static_cast<double>(std::min(reading.tasks_done, reading.tasks_total)) / static_cast<double>(reading.tasks_total);
    line += ", " + fixed(100 * share, 0) + " % of the step's tasks";
  } else if (items && reading.total > 0) {
    share = static_cast<double>(std::min(reading.done, reading.total)) / static_cast<double>(reading.total);
  }
  if (share > 0 && share < 1) line += ", about " + fixed(reading.elapsed_s * (1 - share) / share, 0) + " s left";
  return line;
}

ProgressLine::ProgressLine(std::string what, bool items) : what_(std::move(what)), items_(items), scope_(&progress_) {
  if (isatty(fileno(stderr)) == 0) return;
  ticker_ = std::thread([this] { tick(); });
}

ProgressLine::~ProgressLine() {
  if (!ticker_.joinable()) return;
  {
    const std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  ticker_.join();
  if (shown_) std::cerr << "\r\033[K" << std::flush;
}

void ProgressLine::tick() {
  using namespace std::chrono_literals;
  // Quick work prints nothing: the line appears after a second, or after CTWIN_PROGRESS_AFTER_MS
  // (tests set 0 to see it on work that a fast machine finishes within the second).
  std::chrono::milliseconds after = 1s;
  if (const char* given = std::getenv("CTWIN_PROGRESS_AFTER_MS"); given != nullptr && *given != '\0') {
    after = std::chrono::milliseconds(std::strtol(given, nullptr, 10));
  }
  std::unique_lock lock(mutex_);
  if (wake_.wait_for(lock, after, [this] { return stop_; })) return;
  do {
    ProgressReading reading;
    reading.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    reading.events = progress_.events.load(std::memory_order_relaxed);
    reading.done = progress_.done.load(std::memory_order_relaxed);
    reading.total = progress_.total.load(std::memory_order_relaxed);
    reading.tasks_done = progress_.tasks_done.load(std::memory_order_relaxed);
    reading.tasks_total = progress_.tasks_total.load(std::memory_order_relaxed);
    std::cerr << "\r\033[K" << progress_text(what_, items_, reading) << std::flush;
    shown_ = true;
  } while (!wake_.wait_for(lock, 500ms, [this] { return stop_; }));
}

}  // namespace ctwin::cli
