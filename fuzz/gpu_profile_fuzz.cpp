// A GPU profile, plain or calibrated (with its GEMM efficiency table and training time
// scale), and a few GEMM estimates on it: what `ctwin gemm --gpu FILE` does with it.

#include "ctwin/compute/gemm_limits.hpp"
#include "ctwin/compute/gemm_model.hpp"
#include "ctwin/compute/gpu_spec.hpp"
#include "ctwin/core/json_reader.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return ctwin::fuzzing::expect_input_error_at_most([&] {
    const auto document = ctwin::parse_json_text(ctwin::fuzzing::text_of(data, size), "gpu.json");
    const ctwin::compute::GpuSpec gpu = ctwin::compute::parse_gpu_spec(document, "gpu.json");
    for (const auto& [dtype, rate] : gpu.peak_dense) {
      for (const std::int64_t side : {64, 4096, 16384}) {
        const ctwin::compute::GemmShape shape{side, side, side, dtype};
        if (ctwin::compute::gemm_shape_problem(gpu, shape)) continue;
        (void)ctwin::compute::estimate_gemm(gpu, shape);
      }
    }
  });
}
