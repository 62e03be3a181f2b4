#pragma once
// Tables show a prediction's error band (analysis/error_bands.hpp) as "low to high" beside the
// figure, and say once under the table which held-out runs it comes from.

#include <iosfwd>
#include <string>

#include "ctwin/api/public_analysis.hpp"

namespace ctwin::cli {

/// "3.412 to 4.120": both ends with `decimals` decimals, each multiplied by `scale` (100 for a percentage).
[[nodiscard]] std::string interval_text(const analysis::Interval& interval, int decimals, double scale = 1);

/// "p10-p90: what would be measured, from the held-out errors of <class> (...)", and each fallback.
void print_band_source(std::ostream& out, const analysis::ErrorBand& band);

}  // namespace ctwin::cli
