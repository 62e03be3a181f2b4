#pragma once
// The one place where quantity strings ("400Gbps", "50GBps", "1.5us", "80GiB") become typed
// values. b is bits and B bytes; K/M/G/T are powers of 1000 and Ki/Mi/Gi/Ti powers of 1024.
// A bare number where a unit is required is an error, never a silent default.

#include <stdexcept>
#include <string>
#include <string_view>

#include "ctwin/core/units.hpp"

namespace ctwin {

/// Thrown by the parsers; callers that know the file and field rethrow it as InputError.
class UnitError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// "80GiB", "1.5MB", "4096B". Fractions round to the nearest byte.
[[nodiscard]] Bytes parse_bytes(std::string_view text);
/// "400Gbps", "50GBps", "25 GB/s", "900GiBps".
[[nodiscard]] Bandwidth parse_bandwidth(std::string_view text);
/// "1.5us", "600ns", "2ms", "0.25s", "100ps".
[[nodiscard]] SimTime parse_time(std::string_view text);

/// "989.4TFLOPS", "2.25PFLOPS", "312 TFLOP/s": floating-point operations per second.
[[nodiscard]] FlopRate parse_flop_rate(std::string_view text);

/// nccl-tests' size syntax for -b/-e: a bare count of bytes or a K/M/G suffix meaning
/// powers of 1024 ("8", "128K", "8G").
[[nodiscard]] Bytes parse_nccl_size(std::string_view text);

/// `text` in single quotes, as error messages cite what the user wrote.
[[nodiscard]] std::string quoted(std::string_view text);

/// Human-readable forms used in reports: "400 Gbps", "1.50 us", "64 MiB".
[[nodiscard]] std::string format_bandwidth(Bandwidth rate);
[[nodiscard]] std::string format_time(SimTime time);
[[nodiscard]] std::string format_bytes(Bytes size);

}  // namespace ctwin
