#pragma once
// The deterministic per-flow hash every topology's ECMP choices use: a fixed,
// platform-independent mix (SplitMix64's finalizer), so paths never depend on the standard
// library's std::hash.

#include <cstdint>

namespace ctwin::fabric {

[[nodiscard]] inline std::uint64_t ecmp_mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

/// One of `choices` for the flow at hop `salt`.
[[nodiscard]] inline int ecmp_pick(std::uint64_t flow_hash, int salt, int choices) {
  return static_cast<int>(ecmp_mix(flow_hash + static_cast<std::uint64_t>(salt) * 0x632be59bd9b4e019ULL) %
                          static_cast<std::uint64_t>(choices));
}

}  // namespace ctwin::fabric
