#pragma once
// Sharing a whole number of units (layers, micro-batches) in proportion to weights (speeds): the
// rounding rule a pool's balance "speed" uses for pipeline layers and for DP micro-batch shares
// (docs/heterogeneous.md), kept in one place so that both round alike.

#include <cstdint>
#include <vector>

namespace ctwin::replay {

/// `total` units over `weights` (all > 0): each gets the floor of its ideal share total·w/Σw, at
/// least one; then, one unit at a time, the largest remainder gains (or, when the minimums
/// overshoot, the smallest remainder above one loses), ties to the lower index. Empty when `total`
/// cannot give every weight one unit.
[[nodiscard]] std::vector<std::int64_t> proportional_shares(const std::vector<double>& weights, std::int64_t total);

}  // namespace ctwin::replay
