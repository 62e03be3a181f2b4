// An nccl calibration file as `ctwin calibrate --nccl` writes it and `--calibration` reads it.

#include "ctwin/calibration/nccl_calibration_file.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return ctwin::fuzzing::expect_input_error_at_most([&] {
    (void)ctwin::calibration::read_nccl_calibration(ctwin::fuzzing::scratch_file(data, size, ".json"));
  });
}
