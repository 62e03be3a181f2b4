#pragma once
// Stopping a long computation from outside it (Ctrl-C in a notebook) without killing the
// process: the caller owns a flag and installs it on the computing thread with an
// InterruptScope; loops that may run long call interruption_point(), which throws Interrupted
// once the flag is set. Nothing global: each thread sees only the flag installed on it (and
// parallel_for hands its caller's flag to its helpers).

#include <atomic>
#include <stdexcept>

namespace ctwin {

class Interrupted : public std::runtime_error {
 public:
  Interrupted() : std::runtime_error("interrupted") {}
};

/// The flag installed on this thread, or null.
[[nodiscard]] const std::atomic<bool>* interrupt_flag();

/// Installs `flag` on this thread for the scope's lifetime (null: none), restoring the previous one after.
class InterruptScope {
 public:
  explicit InterruptScope(const std::atomic<bool>* flag);
  ~InterruptScope();
  InterruptScope(const InterruptScope&) = delete;
  InterruptScope& operator=(const InterruptScope&) = delete;

 private:
  const std::atomic<bool>* previous_;
};

/// Throws Interrupted if this thread's flag is set. A thread-local load when none is installed.
void interruption_point();

}  // namespace ctwin
