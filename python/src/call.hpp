#pragma once
// How the module calls into ctwin: the work runs on a helper thread with the GIL released, so
// other Python threads run meanwhile, while the calling thread wakes every 50 ms, takes the GIL
// and checks for signals: Ctrl-C sets the work's interrupt flag (ctwin/core/interrupt.hpp) and
// raises KeyboardInterrupt once the work has stopped.

#include <pybind11/pybind11.h>

#include <atomic>
#include <chrono>
#include <future>
#include <utility>

#include "ctwin/core/interrupt.hpp"

namespace ctwin::python {

template <typename Work>
auto call_interruptibly(Work&& work) -> decltype(work()) {
  std::atomic<bool> interrupted{false};
  pybind11::gil_scoped_release release;
  auto result = std::async(std::launch::async, [&] {
    const InterruptScope scope(&interrupted);
    return work();
  });
  while (result.wait_for(std::chrono::milliseconds(50)) != std::future_status::ready) {
    pybind11::gil_scoped_acquire acquire;
    if (PyErr_CheckSignals() != 0) {
      interrupted = true;
      result.wait();
      throw pybind11::error_already_set();
    }
  }
  return result.get();
}

}  // namespace ctwin::python
