#include "ctwin/core/limits.hpp"

#include <cmath>
#include <cstdio>

#include "ctwin/core/error.hpp"
#include "ctwin/core/unit_parse.hpp"

namespace ctwin {

void fail_time_out_of_range(double picoseconds) {
  char text[160];
  std::snprintf(text, sizeof text, "a computed time of %g s is beyond int64 picoseconds (an input bound is missing)",
                picoseconds * 1e-12);
  throw InternalError(text);
}

}  // namespace ctwin

namespace ctwin::limits {

std::optional<std::string> bandwidth_problem(Bandwidth rate) {
  const double bits = rate.bytes_per_second() * 8;
  if (!(bits > 0)) return "bandwidth must be positive";
  if (bits < kMinBitsPerSecond || bits > kMaxBitsPerSecond) {
    return "bandwidth " + format_bandwidth(rate) + " is outside [1 Mbps, 100 Tbps]";
  }
  return std::nullopt;
}

std::optional<std::string> flop_rate_problem(FlopRate rate) {
  if (!(rate.per_second() > 0)) return "compute rate must be positive";
  if (rate.per_second() < kMinFlopsPerSecond || rate.per_second() > kMaxFlopsPerSecond) {
    char text[96];
    std::snprintf(text, sizeof text, "compute rate %g TFLOPS is outside [1 GFLOPS, 1 EFLOPS]", rate.teraflops());
    return text;
  }
  return std::nullopt;
}

std::optional<std::string> latency_problem(SimTime time) {
  if (time < SimTime()) return "duration must not be negative";
  if (time > kMaxLatency) return "duration " + format_time(time) + " is above 1 s";
  return std::nullopt;
}

std::optional<std::string> capacity_problem(Bytes size) {
  if (size <= Bytes(0)) return "size must be positive";
  if (size.count() > kMaxCapacityBytes) return "size " + format_bytes(size) + " is above 1 PiB";
  return std::nullopt;
}

std::optional<std::string> message_problem(Bytes size) {
  if (size < Bytes(0)) return "size must not be negative";
  if (size.count() > kMaxMessageBytes) return "size " + format_bytes(size) + " is above 1 TiB";
  return std::nullopt;
}

std::optional<std::string> degraded_share_problem(double share) {
  if (!(share > 0 && share <= 1)) return "a share of the nominal rate is in (0, 1]";
  if (share < kMinDegradedShare) {
    return "a share below 0.001 is a failed part, not a slow one (ctwin slows a part down to 0.1% of its rate; "
           "failures are `ctwin goodput`'s)";
  }
  return std::nullopt;
}

void require_finite_non_negative(double value, const char* what) {
  if (std::isfinite(value) && value >= 0) return;
  char text[160];
  std::snprintf(text, sizeof text, "result %s is %g: a result must be finite and not negative", what, value);
  throw InternalError(text);
}

int gpu_count(std::int64_t gpus, const std::string& flag) {
  if (gpus < 1) throw InputError(flag, "", "must be a positive number of GPUs, got " + std::to_string(gpus));
  if (gpus > kMaxGpus) {
    throw InputError(flag, "", std::to_string(gpus) + " GPUs is beyond any build ctwin models (at most 2^24 = " +
                                   std::to_string(kMaxGpus) + ")");
  }
  return static_cast<int>(gpus);
}

std::optional<std::int64_t> checked_product(std::int64_t a, std::int64_t b) {
  std::int64_t product = 0;
  if (__builtin_mul_overflow(a, b, &product)) return std::nullopt;
  return product;
}

}  // namespace ctwin::limits
