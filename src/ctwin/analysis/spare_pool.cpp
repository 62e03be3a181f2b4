#include "ctwin/analysis/spare_pool.hpp"

#include <charconv>
#include <cmath>

#include "ctwin/core/error.hpp"

namespace ctwin::analysis {

long long parse_spare_count(const std::string& text, const std::string& flag, long long job_nodes,
                            long long scalable_units) {
  const auto bad = [&](const std::string& why) -> InputError {
    return InputError(flag, "", "'" + text + "': " + why + " (expected e.g. 16, 5% or 2/su)");
  };
  double value = 0;
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  const auto [rest, error] = std::from_chars(begin, end, value);
  if (error != std::errc() || rest == begin || !std::isfinite(value)) throw bad("not a number");
  if (value < 0) throw bad("a spare count cannot be negative");
  const std::string unit(rest, end);
  double nodes = 0;
  if (unit.empty()) {
    if (value != std::floor(value)) throw bad("a number of nodes must be whole");
    nodes = value;
  } else if (unit == "%") {
    nodes = std::ceil(value / 100.0 * static_cast<double>(job_nodes) - 1e-9);
  } else if (unit == "/su") {
    if (value != std::floor(value)) throw bad("spares per scalable unit must be whole");
    if (scalable_units <= 0) throw bad("this fabric has no scalable units");
    nodes = value * static_cast<double>(scalable_units);
  } else {
    throw bad("unknown unit '" + unit + "'");
  }
  if (nodes > static_cast<double>(job_nodes)) {
    throw InputError(flag, "", "'" + text + "' is " + std::to_string(static_cast<long long>(nodes)) +
                                   " spare nodes, more than the " + std::to_string(job_nodes) +
                                   " nodes of the build they protect");
  }
  return static_cast<long long>(nodes);
}

const char* to_string(OnEmptyPool mode) { return mode == OnEmptyPool::kWait ? "wait" : "shrink"; }

}  // namespace ctwin::analysis
