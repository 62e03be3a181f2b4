// The range policy (core/limits.hpp) and the strict JSON reading around it: bounds with their
// units, duplicate keys with their pointer, numbers beyond double's range, and results that
// must be finite and not negative.

#include <gtest/gtest.h>

#include <string>

#include "ctwin/core/error.hpp"
#include "ctwin/core/json_reader.hpp"
#include "ctwin/core/limits.hpp"
#include "ctwin/core/overrides.hpp"
#include "ctwin/core/unit_parse.hpp"

namespace ctwin {
namespace {

using namespace ctwin::literals;

std::string input_error(const std::string& text) {
  try {
    (void)parse_json_text(text, "doc.json");
  } catch (const InputError& error) {
    return error.what();
  }
  ADD_FAILURE() << "no InputError for " << text;
  return "";
}

TEST(RangePolicy, BandwidthBoundsAreOneMegabitToHundredTerabit) {
  EXPECT_FALSE(limits::bandwidth_problem(parse_bandwidth("1Mbps")));
  EXPECT_FALSE(limits::bandwidth_problem(parse_bandwidth("100Tbps")));
  EXPECT_FALSE(limits::bandwidth_problem(400_Gbps));
  EXPECT_TRUE(limits::bandwidth_problem(parse_bandwidth("999kbps")));
  EXPECT_TRUE(limits::bandwidth_problem(parse_bandwidth("101Tbps")));
  EXPECT_TRUE(limits::bandwidth_problem(parse_bandwidth("1e30Gbps")));
  EXPECT_EQ(*limits::bandwidth_problem(Bandwidth()), "bandwidth must be positive");
}

TEST(RangePolicy, OtherQuantities) {
  EXPECT_FALSE(limits::latency_problem(SimTime()));
  EXPECT_FALSE(limits::latency_problem(parse_time("1s")));
  EXPECT_TRUE(limits::latency_problem(parse_time("1.001s")));
  EXPECT_TRUE(limits::latency_problem(parse_time("-1ns")));
  EXPECT_FALSE(limits::capacity_problem(parse_bytes("1024TiB")));  // 1 PiB
  EXPECT_TRUE(limits::capacity_problem(parse_bytes("1025TiB")));
  EXPECT_TRUE(limits::capacity_problem(Bytes(0)));
  EXPECT_FALSE(limits::message_problem(Bytes(0)));
  EXPECT_FALSE(limits::message_problem(parse_bytes("1TiB")));
  EXPECT_TRUE(limits::message_problem(parse_bytes("1000TB")));
  EXPECT_FALSE(limits::flop_rate_problem(parse_flop_rate("9PFLOPS")));
  EXPECT_TRUE(limits::flop_rate_problem(parse_flop_rate("2000PFLOPS")));
  EXPECT_TRUE(limits::flop_rate_problem(parse_flop_rate("1MFLOPS")));
}

TEST(RangePolicy, CheckedProductCatchesOverflow) {
  EXPECT_EQ(limits::checked_product(1 << 20, 1 << 20), std::int64_t{1} << 40);
  EXPECT_FALSE(limits::checked_product(std::int64_t{1} << 32, std::int64_t{1} << 32));
  EXPECT_FALSE(limits::checked_product(-(std::int64_t{1} << 62), 4));
}

// Python's gpus=2**32+64 went through static_cast<int> into a build of 64 GPUs (issue 36).
TEST(RangePolicy, GpuCountsAreCheckedNotWrapped) {
  EXPECT_EQ(limits::gpu_count(1), 1);
  EXPECT_EQ(limits::gpu_count(std::int64_t{1} << 24), 1 << 24);
  for (const std::int64_t gpus : {(std::int64_t{1} << 32) + 64, (std::int64_t{1} << 24) + 1, std::int64_t{0}, std::int64_t{-8}}) {
    try {
      (void)limits::gpu_count(gpus, "gpus");
      ADD_FAILURE() << gpus << " was taken";
    } catch (const InputError& e) {
      EXPECT_EQ(e.source(), "gpus");
      EXPECT_NE(std::string(e.what()).find(std::to_string(gpus)), std::string::npos) << e.what();
    }
  }
}

// Degraded parts: 10^-3 of the nominal rate at least (a failed part below it), 1 at most.
TEST(RangePolicy, DegradedSharesHaveAFloor) {
  EXPECT_FALSE(limits::degraded_share_problem(1));
  EXPECT_FALSE(limits::degraded_share_problem(0.001));
  for (const double share : {0.0009, 1e-12, 1e-300, 0.0, -0.5, 1.5}) EXPECT_TRUE(limits::degraded_share_problem(share)) << share;
}

TEST(RangePolicy, ResultsMustBeFiniteAndNotNegative) {
  EXPECT_NO_THROW(limits::require_finite_non_negative(0, "x"));
  EXPECT_THROW(limits::require_finite_non_negative(-1e-9, "x"), InternalError);
  EXPECT_THROW(limits::require_finite_non_negative(1.0 / 0.0, "x"), InternalError);
  EXPECT_THROW(limits::require_finite_non_negative(std::nan(""), "x"), InternalError);
}

TEST(RangePolicy, TimesBeyondInt64PicosecondsAreCaught) {
  EXPECT_EQ(SimTime::from_seconds(1e6).ps(), std::int64_t{1'000'000'000'000'000'000});
  EXPECT_THROW((void)SimTime::from_seconds(1e7), InternalError);
  EXPECT_THROW((void)transfer_time(Bytes(std::int64_t{1} << 40), Bandwidth::bits_per_second(1)), InternalError);
}

TEST(StrictJson, DuplicateKeysAreErrorsWithTheirPointer) {
  EXPECT_EQ(input_error(R"({"gpus": 64, "gpus": 128})"), "doc.json: /gpus: key given twice in one object");
  EXPECT_EQ(input_error(R"({"a": {"b": [1, {"c": 1, "c": 2}]}})"), "doc.json: /a/b/1/c: key given twice in one object");
  EXPECT_EQ(input_error(R"({"x/y": {"c": 1, "c": 2}})"), "doc.json: /x~1y/c: key given twice in one object");
  EXPECT_EQ(input_error(R"([[1, 2], {"k": 0}, {"k": 1, "k": 1}])"), "doc.json: /2/k: key given twice in one object");
  // The same key in sibling objects is fine.
  EXPECT_NO_THROW((void)parse_json_text(R"({"a": {"k": 1}, "b": {"k": 2}, "c": [{"k": 1}, {"k": 2}]})", "doc.json"));
}

TEST(StrictJson, NumbersBeyondDoubleAreInputErrors) {
  EXPECT_EQ(input_error(R"({"gpus": 1e999})"), "doc.json: a number is out of range (beyond +-1.8e308)");
  EXPECT_EQ(input_error(R"({"gpus": -1e999})"), "doc.json: a number is out of range (beyond +-1.8e308)");
}

TEST(StrictJson, OverridesKeepTheRules) {
  nlohmann::json doc = {{"a", 1}};
  EXPECT_THROW(apply_overrides(doc, {R"(b={"k": 1, "k": 2})"}), InputError);
  // Found by fuzz_overrides: a value that is not UTF-8 failed later inside an error message.
  EXPECT_THROW(apply_overrides(doc, {"training.seq_len=40\xff\xffing.micro_batch=2"}), InputError);
  EXPECT_THROW(apply_overrides(doc, {"a\xc3=1"}), InputError);
  apply_overrides(doc, {"a=1e999"});
  EXPECT_EQ(doc["a"], "1e999");  // not JSON: kept as text, for the reader to refuse with its field
}

}  // namespace
}  // namespace ctwin
