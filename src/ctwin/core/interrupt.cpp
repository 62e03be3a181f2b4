#include "ctwin/core/interrupt.hpp"

namespace ctwin {
namespace {

thread_local const std::atomic<bool>* installed_flag = nullptr;

}  // namespace

const std::atomic<bool>* interrupt_flag() { return installed_flag; }

InterruptScope::InterruptScope(const std::atomic<bool>* flag) : previous_(installed_flag) { installed_flag = flag; }

InterruptScope::~InterruptScope() { installed_flag = previous_; }

void interruption_point() {
  if (installed_flag != nullptr && installed_flag->load(std::memory_order_relaxed)) throw Interrupted();
}

}  // namespace ctwin
