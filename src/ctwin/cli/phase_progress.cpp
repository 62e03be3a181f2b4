#include "ctwin/cli/phase_progress.hpp"

#include <algorithm>

#include "ctwin/cli/output.hpp"

namespace ctwin::cli {

std::optional<std::string> PhaseProgress::update(const std::string& phase, std::size_t done, std::size_t total,
                                                 Clock::time_point now) {
  std::string text;
  if (phase != phase_) {
    // A new phase starts where the last one's work ended, not at its own first candidate: timed
    // from there, one candidate done would read as a rate of a billion a second.
    if (open_) text += '\n';
    open_ = false;
    phase_ = phase;
    phase_start_ = last_;
  }
  last_ = now;
  const bool phase_done = total > 0 && done >= total;
  if (std::chrono::duration<double>(now - start_).count() < 1 && !phase_done) {
    if (text.empty()) return std::nullopt;
    return text;
  }
  const double elapsed = std::max(std::chrono::duration<double>(now - phase_start_).count(), 1e-3);
  const double rate = static_cast<double>(done) / elapsed;
  text += "\r\033[K[" + phase + " " + std::to_string(done);
  if (total > 0) {
    text += "/" + std::to_string(total) + "] " + fixed(rate, 1) + " candidates/s, " +
            fixed(static_cast<double>(total - std::min(done, total)) / rate, 0) + " s left";
  } else {
    text += " replayed] " + fixed(rate, 1) + " candidates/s (the bound prunes the rest)";
  }
  open_ = !phase_done;
  if (phase_done) text += '\n';
  return text;
}

std::string PhaseProgress::finish() {
  if (!open_) return "";
  open_ = false;
  return "\n";
}

}  // namespace ctwin::cli
