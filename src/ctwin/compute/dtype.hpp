#pragma once
// Element types of tensor-core kernels: their names on the command line and in files, and their
// storage size.

#include <string>
#include <string_view>

namespace ctwin::compute {

enum class Dtype { kTf32, kBf16, kFp16, kFp8, kFp4 };

/// "tf32", "bf16", "fp16", "fp8", "fp4"; also the PyTorch spellings "bfloat16", "float16" and
/// "fp8_e4m3fn". Returns false for anything else.
[[nodiscard]] bool parse_dtype(std::string_view text, Dtype& out);
/// The short name ("bf16").
[[nodiscard]] std::string dtype_name(Dtype dtype);
/// The list of short names, for error messages ("tf32, bf16, fp16, fp8, fp4").
[[nodiscard]] std::string dtype_choices();
/// Storage bytes per element (fp4 packs two per byte: 0.5).
[[nodiscard]] double dtype_bytes(Dtype dtype);
/// Bytes per element of a GEMM's output: low-precision GEMMs (fp8, fp4) write bf16, as cuBLASLt
/// and Transformer Engine do in training.
[[nodiscard]] double gemm_output_bytes(Dtype dtype);

}  // namespace ctwin::compute
