#include "ctwin/core/rate_parse.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <string>
#include <utility>

#include "ctwin/core/unit_parse.hpp"

namespace ctwin {
namespace {

/// The leading number and the rest, spaces trimmed; UnitError when there is no number.
std::pair<double, std::string_view> split(std::string_view text, const char* example) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end == text.data()) {
    throw UnitError("expected a number with a unit (e.g. '" + std::string(example) + "'), got " + quoted(text));
  }
  std::string_view unit(end, static_cast<std::size_t>(text.data() + text.size() - end));
  while (!unit.empty() && unit.front() == ' ') unit.remove_prefix(1);
  while (!unit.empty() && unit.back() == ' ') unit.remove_suffix(1);
  if (!std::isfinite(value)) throw UnitError(quoted(text) + " is not a finite number");
  if (value < 0) throw UnitError(quoted(text) + " is negative");
  if (unit.empty()) throw UnitError(quoted(text) + " has no unit (e.g. '" + std::string(example) + "')");
  return {value, unit};
}

constexpr std::array<std::pair<std::string_view, double>, 12> kHoursPer{{
    {"s", 1.0 / 3600}, {"sec", 1.0 / 3600}, {"min", 1.0 / 60}, {"h", 1.0}, {"hour", 1.0}, {"hours", 1.0},
    {"d", 24.0}, {"day", 24.0}, {"days", 24.0}, {"w", 168.0}, {"week", 168.0}, {"weeks", 168.0},
}};

double hours_per(std::string_view unit) {
  for (const auto& [name, hours] : kHoursPer) {
    if (unit == name) return hours;
  }
  if (unit == "year" || unit == "y") return 8766.0;  // 365.25 days
  return 0;
}

}  // namespace

double parse_hours(std::string_view text) {
  const auto [value, unit] = split(text, "30min");
  const double per = unit == "year" || unit == "y" ? 0 : hours_per(unit);
  if (per == 0) throw UnitError("unknown duration unit " + quoted(unit) + " (expected s, min, h, d or w)");
  return value * per;
}

double parse_rate_per_hour(std::string_view text) {
  const auto [value, unit] = split(text, "1.5e-5/h");
  if (unit == "FIT") return value * 1e-9;
  if (unit.size() > 1 && unit.front() == '/') {
    const double per = hours_per(unit.substr(1));
    if (per > 0) return value / per;
  }
  throw UnitError("unknown rate unit " + quoted(unit) + " (expected /h, /day, /year or FIT)");
}

}  // namespace ctwin
