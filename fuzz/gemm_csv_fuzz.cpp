// A GEMM sweep CSV, read as `ctwin calibrate --gemm` reads it, then fitted on the H100 profile
// as calibration does (the fit has its own refusals: faster than peak, too large a grid).

#include "ctwin/calibration/gemm_csv.hpp"
#include "ctwin/calibration/gemm_fit.hpp"
#include "ctwin/compute/gpu_spec.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const ctwin::compute::GpuSpec kGpu =
      ctwin::compute::load_gpu_spec(ctwin::fuzzing::repo_root() / "models/gpus/h100-sxm.json");
  return ctwin::fuzzing::expect_input_error_at_most([&] {
    const auto sweep = ctwin::calibration::read_gemm_csv(ctwin::fuzzing::scratch_file(data, size, ".csv"),
                                                         ctwin::calibration::MeasurementColumn::kRequired);
    (void)ctwin::calibration::fit_gemm_table(kGpu, sweep);
  });
}
