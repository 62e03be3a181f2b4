#pragma once
// Strong unit types. Simulated time is an exact integer count of picoseconds so that event
// ordering never depends on floating-point rounding; sizes are exact byte counts; rates are
// doubles because they are the result of division and fair sharing.

#include <cmath>
#include <compare>
#include <cstdint>
#include <limits>

namespace ctwin {

/// Throws InternalError: a computed time beyond int64 picoseconds (106 days) or not finite.
/// Readers bound every input (core/limits.hpp) so that this is never the user's doing.
[[noreturn]] void fail_time_out_of_range(double picoseconds);

/// Simulated time (or a duration) in integer picoseconds. 2^63 ps is about 106 days.
class SimTime {
 public:
  constexpr SimTime() = default;
  [[nodiscard]] static constexpr SimTime from_ps(std::int64_t ps) { return SimTime(ps); }
  /// Rounds to the nearest picosecond.
  [[nodiscard]] static SimTime from_seconds(double s) { return SimTime(checked_ps(s * 1e12)); }
  [[nodiscard]] static constexpr SimTime max() {
    return SimTime(std::numeric_limits<std::int64_t>::max());
  }

  [[nodiscard]] constexpr std::int64_t ps() const { return ps_; }
  [[nodiscard]] constexpr double seconds() const { return static_cast<double>(ps_) * 1e-12; }
  [[nodiscard]] constexpr double microseconds() const { return static_cast<double>(ps_) * 1e-6; }

  constexpr SimTime& operator+=(SimTime o) { ps_ += o.ps_; return *this; }
  constexpr SimTime& operator-=(SimTime o) { ps_ -= o.ps_; return *this; }
  friend constexpr SimTime operator+(SimTime a, SimTime b) { return SimTime(a.ps_ + b.ps_); }
  friend constexpr SimTime operator-(SimTime a, SimTime b) { return SimTime(a.ps_ - b.ps_); }
  friend constexpr SimTime operator*(SimTime a, std::int64_t k) { return SimTime(a.ps_ * k); }
  friend constexpr SimTime operator*(std::int64_t k, SimTime a) { return SimTime(a.ps_ * k); }
  friend constexpr auto operator<=>(SimTime, SimTime) = default;

  /// `ps` rounded to the nearest integer; fail_time_out_of_range beyond +-9.2e18.
  [[nodiscard]] static std::int64_t checked_ps(double ps) {
    if (!(std::fabs(ps) < 9.2e18)) fail_time_out_of_range(ps);
    return std::llround(ps);
  }

 private:
  constexpr explicit SimTime(std::int64_t ps) : ps_(ps) {}
  std::int64_t ps_ = 0;
};

/// A size in bytes.
class Bytes {
 public:
  constexpr Bytes() = default;
  constexpr explicit Bytes(std::int64_t count) : count_(count) {}
  [[nodiscard]] constexpr std::int64_t count() const { return count_; }

  constexpr Bytes& operator+=(Bytes o) { count_ += o.count_; return *this; }
  friend constexpr Bytes operator+(Bytes a, Bytes b) { return Bytes(a.count_ + b.count_); }
  friend constexpr Bytes operator-(Bytes a, Bytes b) { return Bytes(a.count_ - b.count_); }
  friend constexpr Bytes operator*(Bytes a, std::int64_t k) { return Bytes(a.count_ * k); }
  friend constexpr Bytes operator*(std::int64_t k, Bytes a) { return Bytes(a.count_ * k); }
  friend constexpr auto operator<=>(Bytes, Bytes) = default;

 private:
  std::int64_t count_ = 0;
};

/// A data rate in bytes per second.
class Bandwidth {
 public:
  constexpr Bandwidth() = default;
  [[nodiscard]] static constexpr Bandwidth bytes_per_second(double v) { return Bandwidth(v); }
  [[nodiscard]] static constexpr Bandwidth bits_per_second(double v) { return Bandwidth(v / 8); }

  [[nodiscard]] constexpr double bytes_per_second() const { return bps_; }
  [[nodiscard]] constexpr double gigabytes_per_second() const { return bps_ * 1e-9; }
  [[nodiscard]] constexpr double gigabits_per_second() const { return bps_ * 8e-9; }

  friend constexpr Bandwidth operator*(Bandwidth a, double k) { return Bandwidth(a.bps_ * k); }
  friend constexpr Bandwidth operator*(double k, Bandwidth a) { return Bandwidth(a.bps_ * k); }
  friend constexpr Bandwidth operator/(Bandwidth a, double k) { return Bandwidth(a.bps_ / k); }
  friend constexpr Bandwidth operator+(Bandwidth a, Bandwidth b) { return Bandwidth(a.bps_ + b.bps_); }
  friend constexpr double operator/(Bandwidth a, Bandwidth b) { return a.bps_ / b.bps_; }
  friend constexpr auto operator<=>(Bandwidth, Bandwidth) = default;

 private:
  constexpr explicit Bandwidth(double bps) : bps_(bps) {}
  double bps_ = 0;
};

/// A count of floating-point operations.
class FlopCount {
 public:
  constexpr FlopCount() = default;
  constexpr explicit FlopCount(double count) : count_(count) {}
  [[nodiscard]] constexpr double count() const { return count_; }
  friend constexpr FlopCount operator+(FlopCount a, FlopCount b) { return FlopCount(a.count_ + b.count_); }
  friend constexpr auto operator<=>(FlopCount, FlopCount) = default;

 private:
  double count_ = 0;
};

/// A compute rate in floating-point operations per second.
class FlopRate {
 public:
  constexpr FlopRate() = default;
  [[nodiscard]] static constexpr FlopRate per_second(double v) { return FlopRate(v); }
  [[nodiscard]] constexpr double per_second() const { return rate_; }
  [[nodiscard]] constexpr double teraflops() const { return rate_ * 1e-12; }
  friend constexpr auto operator<=>(FlopRate, FlopRate) = default;

 private:
  constexpr explicit FlopRate(double v) : rate_(v) {}
  double rate_ = 0;
};

/// Time to push `size` through a pipe of rate `rate`, rounded up to a whole picosecond so a
/// transfer never finishes before its last byte could have left.
[[nodiscard]] inline SimTime transfer_time(Bytes size, Bandwidth rate) {
  // One division, so a whole number of picoseconds stays whole (1 B at 1 GB/s is 1000 ps).
  const double ps = static_cast<double>(size.count()) * 1e12 / rate.bytes_per_second();
  return SimTime::from_ps(SimTime::checked_ps(std::ceil(ps)));
}

[[nodiscard]] inline SimTime compute_time(FlopCount work, FlopRate rate) {
  return SimTime::from_seconds(work.count() / rate.per_second());
}

namespace literals {
constexpr Bytes operator""_B(unsigned long long v) { return Bytes(static_cast<std::int64_t>(v)); }
constexpr Bytes operator""_KiB(unsigned long long v) { return Bytes(static_cast<std::int64_t>(v) << 10); }
constexpr Bytes operator""_MiB(unsigned long long v) { return Bytes(static_cast<std::int64_t>(v) << 20); }
constexpr Bytes operator""_GiB(unsigned long long v) { return Bytes(static_cast<std::int64_t>(v) << 30); }
constexpr Bytes operator""_MB(unsigned long long v) { return Bytes(static_cast<std::int64_t>(v) * 1000000); }
constexpr SimTime operator""_ps(unsigned long long v) { return SimTime::from_ps(static_cast<std::int64_t>(v)); }
constexpr SimTime operator""_ns(unsigned long long v) { return SimTime::from_ps(static_cast<std::int64_t>(v) * 1000); }
constexpr SimTime operator""_us(unsigned long long v) { return SimTime::from_ps(static_cast<std::int64_t>(v) * 1000000); }
constexpr SimTime operator""_ms(unsigned long long v) { return SimTime::from_ps(static_cast<std::int64_t>(v) * 1000000000); }
constexpr Bandwidth operator""_Gbps(unsigned long long v) { return Bandwidth::bits_per_second(static_cast<double>(v) * 1e9); }
constexpr Bandwidth operator""_GBps(unsigned long long v) { return Bandwidth::bytes_per_second(static_cast<double>(v) * 1e9); }
}  // namespace literals

}  // namespace ctwin
