#include "ctwin/core/unit_parse.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <utility>

namespace ctwin {
namespace {

struct Split {
  double number;
  std::string_view unit;
};

Split split_number(std::string_view text, const char* example) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  double number = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), number);
  if (ec != std::errc() || end == text.data()) {
    throw UnitError("expected a number with a unit, e.g. '" + std::string(example) + "', got " + quoted(text));
  }
  if (!std::isfinite(number)) throw UnitError("value " + quoted(text) + " is not finite");
  std::string_view unit(end, static_cast<std::size_t>(text.data() + text.size() - end));
  while (!unit.empty() && unit.front() == ' ') unit.remove_prefix(1);
  if (unit.empty()) {
    throw UnitError("missing unit in " + quoted(text) + " (expected e.g. '" + std::string(example) + "')");
  }
  return {number, unit};
}

// Strips a decimal (K, M, G, T) or binary (Ki, Mi, Gi, Ti) prefix and returns its multiplier.
double take_prefix(std::string_view& unit) {
  static constexpr std::array<std::pair<std::string_view, double>, 8> kPrefixes{{
      {"Ki", 1024.0}, {"Mi", 1048576.0}, {"Gi", 1073741824.0}, {"Ti", 1099511627776.0},
      {"K", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12},
  }};
  for (const auto& [prefix, factor] : kPrefixes) {
    if (unit.size() > prefix.size() && unit.substr(0, prefix.size()) == prefix) {
      unit.remove_prefix(prefix.size());
      return factor;
    }
  }
  if (unit.size() > 1 && unit.front() == 'k') {  // SI lower-case kilo
    unit.remove_prefix(1);
    return 1e3;
  }
  return 1.0;
}

}  // namespace

Bytes parse_bytes(std::string_view text) {
  auto [number, unit] = split_number(text, "80GiB");
  const std::string_view full_unit = unit;
  const double factor = take_prefix(unit);
  if (unit != "B") {
    throw UnitError("unknown size unit " + quoted(full_unit) + " (expected B, KB, MB, GB, KiB, MiB, GiB, ...)");
  }
  const double count = number * factor;
  if (!(std::fabs(count) < 9.2e18)) throw UnitError("size " + quoted(text) + " is out of range");
  return Bytes(std::llround(count));
}

Bandwidth parse_bandwidth(std::string_view text) {
  auto [number, unit] = split_number(text, "400Gbps");
  const std::string_view full_unit = unit;
  const double factor = take_prefix(unit);
  const double scaled = number * factor;
  if (!std::isfinite(scaled)) throw UnitError("bandwidth " + quoted(text) + " is out of range");
  if (unit == "bps" || unit == "b/s") return Bandwidth::bits_per_second(scaled);
  if (unit == "Bps" || unit == "B/s") return Bandwidth::bytes_per_second(scaled);
  throw UnitError("unknown bandwidth unit " + quoted(full_unit) + " (expected e.g. '400Gbps' or '50GBps')");
}

SimTime parse_time(std::string_view text) {
  auto [number, unit] = split_number(text, "1.5us");
  static constexpr std::array<std::pair<std::string_view, double>, 7> kUnits{{
      {"ps", 1.0}, {"ns", 1e3}, {"us", 1e6}, {"\xC2\xB5s", 1e6}, {"ms", 1e9}, {"s", 1e12}, {"min", 60e12},
  }};
  for (const auto& [name, ps] : kUnits) {
    if (unit == name) {
      const double value = number * ps;
      if (std::fabs(value) > 9.2e18) throw UnitError("time " + quoted(text) + " is out of range");
      return SimTime::from_ps(std::llround(value));
    }
  }
  throw UnitError("unknown time unit " + quoted(unit) + " (expected ps, ns, us, ms or s)");
}

FlopRate parse_flop_rate(std::string_view text) {
  auto [number, unit] = split_number(text, "989.4TFLOPS");
  const std::string_view full_unit = unit;
  // take_prefix stops at T; peta is common in datasheets (B200: 2.25 PFLOPS dense BF16).
  double factor = 1e15;
  if (unit.size() > 1 && unit.front() == 'P') unit.remove_prefix(1);
  else factor = take_prefix(unit);
  const double scaled = number * factor;
  if (!std::isfinite(scaled)) throw UnitError("rate " + quoted(text) + " is out of range");
  if (unit == "FLOPS" || unit == "FLOP/s") return FlopRate::per_second(scaled);
  throw UnitError("unknown compute-rate unit " + quoted(full_unit) + " (expected e.g. '989.4TFLOPS')");
}

Bytes parse_nccl_size(std::string_view text) {
  if (text.empty()) throw UnitError("empty size");
  std::int64_t factor = 1;
  switch (text.back()) {
    case 'K': case 'k': factor = std::int64_t{1} << 10; break;
    case 'M': case 'm': factor = std::int64_t{1} << 20; break;
    case 'G': case 'g': factor = std::int64_t{1} << 30; break;
    case 'T': case 't': factor = std::int64_t{1} << 40; break;
    default: break;
  }
  const std::string_view digits = factor == 1 ? text : text.substr(0, text.size() - 1);
  std::int64_t count = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), count);
  if (ec != std::errc() || end != digits.data() + digits.size()) {
    throw UnitError("expected a size like '8', '128K' or '8G', got " + quoted(text));
  }
  if (count > std::numeric_limits<std::int64_t>::max() / factor || count < 0) {
    throw UnitError("size " + quoted(text) + " is out of range");
  }
  return Bytes(count * factor);
}

std::string quoted(std::string_view text) { return "'" + std::string(text) + "'"; }

std::string format_bandwidth(Bandwidth rate) {
  char text[64];
  const double gbps = rate.gigabits_per_second();
  std::snprintf(text, sizeof text, gbps >= 1000 ? "%.4g Tbps" : "%.4g Gbps", gbps >= 1000 ? gbps / 1000 : gbps);
  return text;
}

std::string format_time(SimTime time) {
  char text[64];
  const double ps = static_cast<double>(time.ps());
  if (std::fabs(ps) < 1e3) std::snprintf(text, sizeof text, "%.0f ps", ps);
  else if (std::fabs(ps) < 1e6) std::snprintf(text, sizeof text, "%.3g ns", ps / 1e3);
  else if (std::fabs(ps) < 1e9) std::snprintf(text, sizeof text, "%.4g us", ps / 1e6);
  else if (std::fabs(ps) < 1e12) std::snprintf(text, sizeof text, "%.4g ms", ps / 1e9);
  else std::snprintf(text, sizeof text, "%.4g s", ps / 1e12);
  return text;
}

std::string format_bytes(Bytes size) {
  static constexpr std::array<const char*, 5> kNames{"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(size.count());
  std::size_t index = 0;
  while (std::fabs(value) >= 1024 && index + 1 < kNames.size()) {
    value /= 1024;
    ++index;
  }
  char text[64];
  std::snprintf(text, sizeof text, "%.4g %s", value, kNames[index]);
  return text;
}

}  // namespace ctwin
