#pragma once
// The goodput tests' time units: the simulation counts seconds, the scenarios speak in hours and days.

namespace ctwin::analysis {

inline constexpr double kHour = 3600;
inline constexpr double kDay = 86400;

}  // namespace ctwin::analysis
