#pragma once
// The range policy's bound on a whole model: each dimension is read within [1, 2^24], but
// their products (parameters, FLOPs per token) are what ctwin counts in int64 and double, and
// 2^24-wide layers times 2^24 layers overflow both. Readers call this once a model is read.

#include <cstdint>
#include <string>

#include "ctwin/workload/model_spec.hpp"

namespace ctwin::workload {

/// Each dimension of a model file (layers, widths, heads, experts, ranks): at most 2^24, large
/// enough for any published model, small enough that products of two never overflow int64.
inline constexpr std::int64_t kMaxDim = 1 << 24;

/// Parameters a model may have: 2^50 (about 10^15; the largest published models have ~2·10^12).
inline constexpr double kMaxModelParameters = 1125899906842624.0;

/// Throws InputError (source, "", why) when an upper bound of `model`'s parameter count, taken
/// in floating point from its dimensions, exceeds kMaxModelParameters.
void check_model_size(const ModelSpec& model, const std::string& source);

}  // namespace ctwin::workload
