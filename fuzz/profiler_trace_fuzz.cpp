// A profiler trace (Kineto or ctwin Chrome JSON, or nsys kernel-summary CSV), read as
// `ctwin validate --trace` reads it: every class and phase summed, the unknown kernels listed.

#include "ctwin/calibration/profiler_trace.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return ctwin::fuzzing::expect_input_error_at_most([&] {
    const auto summary = ctwin::calibration::read_profiler_trace(ctwin::fuzzing::scratch_file(data, size, ".json"));
    (void)summary.total_us();
  });
}
