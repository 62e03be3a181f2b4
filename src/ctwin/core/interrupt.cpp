#include "ctwin/core/interrupt.hpp"

namespace ctwin {
namespace {

thread_local const std::atomic<bool>* installed = nullptr;

}  // namespace

const std::atomic<bool>* interrupt_flag() { return installed; }

InterruptScope::InterruptScope(const std::atomic<bool>* flag) : previous_(installed) { installed = flag; }

InterruptScope::~InterruptScope() { installed = previous_; }

void interruption_point() {
  if (installed != nullptr && installed->load(std::memory_order_relaxed)) throw Interrupted();
}

}  // namespace ctwin
