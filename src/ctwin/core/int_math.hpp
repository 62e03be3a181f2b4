#pragma once
// Integer helpers shared by the builders and models that count whole parts (switches, racks,
// tiles, waves).

#include <cstdint>

namespace ctwin {

/// ⌈a / b⌉ for a ≥ 0 and b > 0.
[[nodiscard]] constexpr std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

}  // namespace ctwin
