#include "ctwin/cli/error_band_output.hpp"

#include <ostream>

#include "ctwin/cli/output.hpp"

namespace ctwin::cli {

std::string interval_text(const analysis::Interval& interval, int decimals, double scale) {
  return fixed(scale * interval.low, decimals) + " to " + fixed(scale * interval.high, decimals);
}

void print_band_source(std::ostream& out, const analysis::ErrorBand& band) {
  out << "p10-p90: what would be measured, from the held-out errors of " << analysis::error_band_phrase(band) << "\n";
  for (const auto& why : band.fallbacks) out << "  (" << why << ")\n";
}

}  // namespace ctwin::cli
