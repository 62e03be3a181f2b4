// Unit types and the one place quantity strings are parsed (core/units.hpp, core/unit_parse.hpp).
// Oracles are the SI / IEC definitions: K = 1e3, Ki = 2^10, 8 bits per byte, 1 s = 1e12 ps.

#include "ctwin/core/units.hpp"

#include "ctwin/core/unit_parse.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

namespace ctwin {
namespace {

using namespace ctwin::literals;

constexpr std::int64_t kKi = std::int64_t{1} << 10;
constexpr std::int64_t kGi = std::int64_t{1} << 30;

// Only meaningful operations compile (docs/architecture.md: core's units).
template <typename A, typename B>
concept Addable = requires(A a, B b) { a + b; };
template <typename A, typename B>
concept Comparable = requires(A a, B b) { a < b; };
static_assert(Addable<SimTime, SimTime>);
static_assert(Addable<Bytes, Bytes>);
static_assert(!Addable<Bytes, SimTime>);
static_assert(!Addable<SimTime, Bytes>);
static_assert(!Addable<Bandwidth, SimTime>);
static_assert(!Addable<SimTime, double>);
static_assert(!Addable<Bytes, double>);
static_assert(!Comparable<Bytes, SimTime>);
static_assert(!std::is_convertible_v<double, SimTime>);
static_assert(!std::is_convertible_v<std::int64_t, Bytes>);  // Bytes(n) must be spelled out

TEST(ParseBandwidth, BitsAndBytesWithDecimalPrefixes) {
  EXPECT_DOUBLE_EQ(parse_bandwidth("400Gbps").bytes_per_second(), 50e9);
  EXPECT_DOUBLE_EQ(parse_bandwidth("50GBps").bytes_per_second(), 50e9);
  EXPECT_DOUBLE_EQ(parse_bandwidth("25 GB/s").bytes_per_second(), 25e9);
  EXPECT_DOUBLE_EQ(parse_bandwidth("800Mb/s").bytes_per_second(), 100e6);
  EXPECT_DOUBLE_EQ(parse_bandwidth("1.6Tbps").bytes_per_second(), 200e9);
  EXPECT_DOUBLE_EQ(parse_bandwidth("8bps").bytes_per_second(), 1.0);
  EXPECT_DOUBLE_EQ(parse_bandwidth("31.5GBps").bytes_per_second(), 31.5e9);
}

TEST(ParseBandwidth, BinaryPrefixIsPowerOfTwo) {
  EXPECT_DOUBLE_EQ(parse_bandwidth("1GiBps").bytes_per_second(), static_cast<double>(kGi));
  EXPECT_DOUBLE_EQ(parse_bandwidth("2KiBps").bytes_per_second(), 2.0 * static_cast<double>(kKi));
  // Gi and G must not be confused.
  EXPECT_NE(parse_bandwidth("1GiBps"), parse_bandwidth("1GBps"));
}

TEST(ParseBandwidth, MatchesLiterals) {
  EXPECT_EQ(parse_bandwidth("400Gbps"), 400_Gbps);
  EXPECT_EQ(parse_bandwidth("50GBps"), 50_GBps);
  EXPECT_EQ(400_Gbps, 50_GBps);
}

TEST(ParseBandwidth, RejectsMissingUnknownOrGarbage) {
  EXPECT_THROW((void)parse_bandwidth("400"), UnitError);       // missing unit
  EXPECT_THROW((void)parse_bandwidth("400GBs"), UnitError);    // unknown unit
  EXPECT_THROW((void)parse_bandwidth("400Gb"), UnitError);     // a size, not a rate
  EXPECT_THROW((void)parse_bandwidth("400gbps"), UnitError);   // no lower-case giga
  EXPECT_THROW((void)parse_bandwidth("Gbps"), UnitError);      // no number
  EXPECT_THROW((void)parse_bandwidth("fast"), UnitError);
  EXPECT_THROW((void)parse_bandwidth(""), UnitError);
  EXPECT_THROW((void)parse_bandwidth("infGbps"), UnitError);   // not finite
  EXPECT_THROW((void)parse_bandwidth("nanGbps"), UnitError);
}

// Regression (bug found with this test; src/ctwin/core/unit_parse.cpp, parse_bandwidth): only
// the number was checked for finiteness, not number x prefix, so "1e300Gbps" parsed to an
// infinite rate, which the JSON reader then accepted as "positive".
TEST(ParseBandwidth, RejectsRatesThatOverflowToInfinity) {
  EXPECT_THROW((void)parse_bandwidth("1e300Gbps"), UnitError);
  EXPECT_THROW((void)parse_bandwidth("1e305TBps"), UnitError);
}

TEST(ParseBandwidth, ErrorMessageQuotesTheUnitAndAnExample) {
  try {
    (void)parse_bandwidth("400GBs");
    FAIL() << "expected UnitError";
  } catch (const UnitError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("'GBs'"), std::string::npos) << what;
    EXPECT_NE(what.find("400Gbps"), std::string::npos) << what;
  }
  try {
    (void)parse_bandwidth("400");
    FAIL() << "expected UnitError";
  } catch (const UnitError& e) {
    EXPECT_NE(std::string(e.what()).find("missing unit"), std::string::npos) << e.what();
  }
}

TEST(ParseBytes, BinaryAndDecimalPrefixes) {
  EXPECT_EQ(parse_bytes("80GiB"), Bytes(80 * kGi));
  EXPECT_EQ(parse_bytes("80GiB"), 80_GiB);
  EXPECT_EQ(parse_bytes("1.5MB"), Bytes(1'500'000));
  EXPECT_EQ(parse_bytes("4096B"), Bytes(4096));
  EXPECT_EQ(parse_bytes("64MiB"), 64_MiB);
  EXPECT_EQ(parse_bytes("2KiB"), Bytes(2048));
  EXPECT_EQ(parse_bytes("2KB"), Bytes(2000));
  EXPECT_EQ(parse_bytes("2kB"), Bytes(2000));
  EXPECT_EQ(parse_bytes("1TiB"), Bytes(kGi * kKi));
  EXPECT_EQ(parse_bytes(" 16 MiB "), 16_MiB);
}

TEST(ParseBytes, FractionsRoundToNearestByte) {
  EXPECT_EQ(parse_bytes("1.5KiB"), Bytes(1536));
  EXPECT_EQ(parse_bytes("0.0004KB"), Bytes(0));   // 0.4 B
  EXPECT_EQ(parse_bytes("0.0006KB"), Bytes(1));   // 0.6 B
}

TEST(ParseBytes, RejectsMissingUnknownOrGarbage) {
  EXPECT_THROW((void)parse_bytes("400"), UnitError);
  EXPECT_THROW((void)parse_bytes("8Gb"), UnitError);    // bits are not a size unit
  EXPECT_THROW((void)parse_bytes("8GiBps"), UnitError);
  EXPECT_THROW((void)parse_bytes("8XB"), UnitError);
  EXPECT_THROW((void)parse_bytes("lots"), UnitError);
  EXPECT_THROW((void)parse_bytes(""), UnitError);
}

// Regression (bug found with this test; src/ctwin/core/unit_parse.cpp, parse_bytes): with no
// range check before std::llround, a size beyond int64 came back as INT64_MIN (glibc) instead
// of a UnitError, and `ctwin traffic --size 1e20B` said "--size: must not be negative".
TEST(ParseBytes, RejectsSizesBeyondInt64) {
  EXPECT_THROW((void)parse_bytes("1e20B"), UnitError);
  EXPECT_THROW((void)parse_bytes("9.3e18B"), UnitError);
  EXPECT_THROW((void)parse_bytes("100000000TiB"), UnitError);
  EXPECT_EQ(parse_bytes("1e18B"), Bytes(1'000'000'000'000'000'000));
}

TEST(ParseTime, ExactPicoseconds) {
  EXPECT_EQ(parse_time("1.5us").ps(), 1'500'000);
  EXPECT_EQ(parse_time("600ns").ps(), 600'000);
  EXPECT_EQ(parse_time("2ms").ps(), 2'000'000'000);
  EXPECT_EQ(parse_time("0.25s").ps(), 250'000'000'000);
  EXPECT_EQ(parse_time("100ps").ps(), 100);
  EXPECT_EQ(parse_time("1min").ps(), 60'000'000'000'000);
  EXPECT_EQ(parse_time("1.5 us"), parse_time("1.5us"));
}

TEST(ParseTime, MatchesLiterals) {
  EXPECT_EQ(parse_time("600ns"), 600_ns);
  EXPECT_EQ(parse_time("3us"), 3_us);
  EXPECT_EQ(parse_time("2ms"), 2_ms);
  EXPECT_EQ(parse_time("7ps"), 7_ps);
  EXPECT_EQ(parse_time("1.5\xC2\xB5s"), 1500_ns);  // the micro sign
}

TEST(ParseTime, RejectsMissingUnknownOrOutOfRange) {
  EXPECT_THROW((void)parse_time("400"), UnitError);
  EXPECT_THROW((void)parse_time("5 hours"), UnitError);
  EXPECT_THROW((void)parse_time("5Ms"), UnitError);  // no prefixes on seconds other than the named ones
  EXPECT_THROW((void)parse_time("soon"), UnitError);
  EXPECT_THROW((void)parse_time("us"), UnitError);
  EXPECT_THROW((void)parse_time("1e10s"), UnitError);  // 1e22 ps does not fit in int64
}

TEST(ParseNcclSize, PowersOf1024) {
  EXPECT_EQ(parse_nccl_size("8G"), Bytes(8 * kGi));
  EXPECT_EQ(parse_nccl_size("128K"), Bytes(128 * kKi));
  EXPECT_EQ(parse_nccl_size("4M"), 4_MiB);
  EXPECT_EQ(parse_nccl_size("8"), Bytes(8));
  EXPECT_EQ(parse_nccl_size("1T"), Bytes(kGi * kKi));
}

TEST(ParseNcclSize, RejectsGarbage) {
  EXPECT_THROW((void)parse_nccl_size(""), UnitError);
  EXPECT_THROW((void)parse_nccl_size("G"), UnitError);
  EXPECT_THROW((void)parse_nccl_size("1.5G"), UnitError);
  EXPECT_THROW((void)parse_nccl_size("8GB"), UnitError);
  EXPECT_THROW((void)parse_nccl_size("eight"), UnitError);
}

// Regression (bug found with this test; src/ctwin/core/unit_parse.cpp, parse_nccl_size):
// count * factor overflowed int64 unchecked (undefined behaviour): "9223372036854775807K" came
// back as -1024 and "100000000000T" as an unrelated positive size.
TEST(ParseNcclSize, RejectsOverflow) {
  EXPECT_THROW((void)parse_nccl_size("9223372036854775807K"), UnitError);
  EXPECT_THROW((void)parse_nccl_size("100000000000T"), UnitError);
  EXPECT_EQ(parse_nccl_size("8388607T"), Bytes(std::int64_t{8388607} << 40));  // largest whole-T size
}

TEST(Format, RoundTripsThroughParsers) {
  EXPECT_EQ(format_bandwidth(400_Gbps), "400 Gbps");
  EXPECT_EQ(parse_bandwidth(format_bandwidth(400_Gbps)), 400_Gbps);
  EXPECT_EQ(format_bytes(64_MiB), "64 MiB");
  EXPECT_EQ(parse_bytes(format_bytes(64_MiB)), 64_MiB);
  EXPECT_EQ(format_time(1500_ns), "1.5 us");
  EXPECT_EQ(parse_time(format_time(1500_ns)), 1500_ns);
  EXPECT_EQ(format_time(7_ps), "7 ps");
}

TEST(TransferTime, ClosedForm) {
  // 64 MiB at 400 Gb/s = 2^26 B / 5e10 B/s = 1.34217728 ms.
  EXPECT_EQ(transfer_time(64_MiB, 400_Gbps).ps(), 1'342'177'280);
  EXPECT_EQ(transfer_time(Bytes(1'000'000), 1_GBps), 1_ms);
  EXPECT_EQ(transfer_time(Bytes(0), 400_Gbps), SimTime());
}

TEST(TransferTime, RoundsUpToWholePicosecond) {
  // 1 B at 3 B/s is 333,333,333,333.33 ps: never finish before the last byte could leave.
  EXPECT_EQ(transfer_time(Bytes(1), Bandwidth::bytes_per_second(3)).ps(), 333'333'333'334);
  EXPECT_EQ(transfer_time(Bytes(2), Bandwidth::bytes_per_second(3)).ps(), 666'666'666'667);
  // 1 B at 0.3 TB/s = 3.33 ps -> 4 ps.
  EXPECT_EQ(transfer_time(Bytes(1), Bandwidth::bytes_per_second(3e11)).ps(), 4);
}

// Regression (bug found with this test; src/ctwin/core/units.hpp, transfer_time): computed as
// size / rate * 1e12 (two roundings), a whole number of picoseconds could come out a hair above
// the integer and ceil() added a spurious picosecond: 1 B at 1 GB/s gave 1001 ps, 25 B at
// 400 Gb/s 501 ps. size * 1e12 / rate (one rounding) is exact in these cases.
TEST(TransferTime, ExactWhenTheRateDividesTheSize) {
  EXPECT_EQ(transfer_time(Bytes(1), 1_GBps).ps(), 1000);
  EXPECT_EQ(transfer_time(Bytes(25), 400_Gbps).ps(), 500);
  // 400 Gb/s moves a byte every 20 ps: every size must be an exact multiple.
  for (std::int64_t n = 1; n <= 4096; ++n) {
    ASSERT_EQ(transfer_time(Bytes(n), 400_Gbps).ps(), 20 * n) << n << " bytes";
  }
}

TEST(SimTime, ArithmeticAndOrdering) {
  EXPECT_EQ(1_us + 500_ns, 1500_ns);
  EXPECT_EQ(2_ms - 1_ms, 1000_us);
  EXPECT_EQ(3_ns * 4, 12_ns);
  EXPECT_EQ(4 * 3_ns, 12_ns);
  SimTime t = 1_ns;
  t += 2_ns;
  EXPECT_EQ(t.ps(), 3000);
  t -= 3_ns;
  EXPECT_EQ(t, SimTime());
  EXPECT_LT(999_ps, 1_ns);
  EXPECT_GT(1_ms, 999_us);
  EXPECT_EQ(SimTime::from_seconds(1.5e-6), 1500_ns);
  EXPECT_EQ(SimTime::from_seconds(0.4e-12).ps(), 0);  // nearest
  EXPECT_EQ(SimTime::from_seconds(0.6e-12).ps(), 1);
  EXPECT_DOUBLE_EQ((2_ms).seconds(), 2e-3);
  EXPECT_DOUBLE_EQ((1500_ns).microseconds(), 1.5);
  EXPECT_GT(SimTime::max(), 1_ms * 1'000'000'000);  // about 106 days fit
}

TEST(Bytes, ArithmeticAndLiterals) {
  EXPECT_EQ(1_GiB, 1024_MiB);
  EXPECT_EQ(1_MiB, 1024_KiB);
  EXPECT_EQ(1_KiB, 1024_B);
  EXPECT_EQ(1_MB, Bytes(1'000'000));
  EXPECT_EQ(3_MiB - 1_MiB, 2_MiB);
  EXPECT_EQ(2 * 1_MiB, 2_MiB);
  Bytes b = 1_KiB;
  b += 1_KiB;
  EXPECT_EQ(b.count(), 2048);
}

TEST(Bandwidth, ConversionsAndRatios) {
  EXPECT_DOUBLE_EQ((400_Gbps).gigabits_per_second(), 400);
  EXPECT_DOUBLE_EQ((400_Gbps).gigabytes_per_second(), 50);
  EXPECT_DOUBLE_EQ(800_Gbps / 400_Gbps, 2.0);
  EXPECT_EQ(400_Gbps * 2.0, 800_Gbps);
  EXPECT_EQ(400_Gbps / 2.0, 200_Gbps);
  EXPECT_EQ(400_Gbps + 400_Gbps, 100_GBps);
}

}  // namespace
}  // namespace ctwin
