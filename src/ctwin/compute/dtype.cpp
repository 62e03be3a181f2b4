#include "ctwin/compute/dtype.hpp"

#include <array>
#include <span>
#include <utility>

namespace ctwin::compute {
namespace {

constexpr std::array<std::pair<std::string_view, Dtype>, 5> kNames{{
    {"tf32", Dtype::kTf32}, {"bf16", Dtype::kBf16}, {"fp16", Dtype::kFp16}, {"fp8", Dtype::kFp8}, {"fp4", Dtype::kFp4},
}};

constexpr std::array<std::pair<std::string_view, Dtype>, 4> kAliases{{
    {"bfloat16", Dtype::kBf16}, {"float16", Dtype::kFp16}, {"fp8_e4m3fn", Dtype::kFp8}, {"fp8_e4m3", Dtype::kFp8},
}};

}  // namespace

bool parse_dtype(std::string_view text, Dtype& out) {
  using Entries = std::span<const std::pair<std::string_view, Dtype>>;
  for (const Entries table : {Entries(kNames), Entries(kAliases)}) {
    for (const auto& [name, dtype] : table) {
      if (name == text) {
        out = dtype;
        return true;
      }
    }
  }
  return false;
}

std::string dtype_name(Dtype dtype) {
  for (const auto& [name, value] : kNames) {
    if (value == dtype) return std::string(name);
  }
  return "?";
}

std::string dtype_choices() {
  std::string out;
  for (const auto& [name, value] : kNames) out += (out.empty() ? "" : ", ") + std::string(name);
  return out;
}

double dtype_bytes(Dtype dtype) {
  switch (dtype) {
    case Dtype::kTf32: return 4;
    case Dtype::kBf16:
    case Dtype::kFp16: return 2;
    case Dtype::kFp8: return 1;
    case Dtype::kFp4: return 0.5;
  }
  return 0;
}

double gemm_output_bytes(Dtype dtype) {
  return dtype == Dtype::kFp8 || dtype == Dtype::kFp4 ? 2.0 : dtype_bytes(dtype);
}

}  // namespace ctwin::compute
