#pragma once
// Quantities of a training run's life rather than of one step: durations from seconds to weeks
// and failure rates. They are doubles (hours) because a run of months overflows SimTime's 106
// days, and because rates are the result of division. Parsed here once, like unit_parse.hpp:
// a bare number where a unit is needed is an error.

#include <string_view>

namespace ctwin {

/// "30s", "5min", "2h", "3d", "1.5day", "2w" → hours. Throws UnitError on a missing or unknown
/// unit, a negative value or a value that is not finite.
[[nodiscard]] double parse_hours(std::string_view text);

/// A failure rate per unit and hour: "1.5e-5/h", "0.2/day", "3/year", "500FIT" (failures per
/// 10^9 unit-hours, the unit of component datasheets). Throws UnitError on a missing or unknown
/// unit or a negative value.
[[nodiscard]] double parse_rate_per_hour(std::string_view text);

}  // namespace ctwin
