// Issue 24, row 10: nccl-tests logs that calibration used to accept and fit (median error 7.7%
// becoming 26.9%, or every parameter silently kept): a log cut at a row boundary, a foreign
// line inside the table, a row timed 0.00, and a 16-rank log read as 7 ranks.

#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "ctwin/calibration/nccl_log.hpp"
#include "ctwin/calibration/nccl_log_check.hpp"
#include "ctwin/core/error.hpp"

namespace ctwin::calibration {
namespace {

// The header of a 2-rank all_reduce (figures made up, self-consistent), then its rows.
const char* const kHead = R"(# Collective test starting: all_reduce_perf
# nThread 1 nGpus 1 minBytes 1048576 maxBytes 4194304 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 0 graph: 0
#
# Using devices
#  Rank  0 Group  0 Pid  41234 on     node01 device  0 [0x18] NVIDIA H100 80GB HBM3
#  Rank  1 Group  0 Pid  41235 on     node01 device  1 [0x2a] NVIDIA H100 80GB HBM3
#
#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)
)";
const char* const kRow1 =
    "     1048576        262144     float     sum      -1    20.00   52.43   52.43    N/A    19.50   53.77   53.77    N/A\n";
const char* const kRow2 =
    "     2097152        524288     float     sum      -1    30.00   69.91   69.91    N/A    30.00   69.91   69.91    N/A\n";
const char* const kFooter = "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 61.17\n#\n";

NcclLog parse_log(const std::string& text) {
  std::istringstream in(text);
  return parse_nccl_log(in, "run.log");
}

std::string error_of(const std::string& text) {
  try {
    (void)parse_log(text);
  } catch (const InputError& error) {
    return error.what();
  }
  ADD_FAILURE() << "no InputError for:\n" << text;
  return "";
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(NcclLogHardening, CompleteLogIsRead) {
  const NcclLog log = parse_log(std::string(kHead) + kRow1 + kRow2 + kFooter);
  EXPECT_EQ(log.rows.size(), 2U);
  EXPECT_NO_THROW(require_fit_ready(log, NcclOp::kAllReduce, 2));
}

TEST(NcclLogHardening, LogCutAtARowBoundaryIsTruncated) {
  const std::string message = error_of(std::string(kHead) + kRow1);
  EXPECT_TRUE(contains(message, "run.log")) << message;
  EXPECT_TRUE(contains(message, "truncated")) << message;
  EXPECT_TRUE(contains(message, "line 10")) << message;  // the last row read
}

TEST(NcclLogHardening, ForeignLineInsideTheTableIsRefused) {
  const std::string message = error_of(std::string(kHead) + kRow1 + "garbage 1.0 2.0\n" + kRow2 + kFooter);
  EXPECT_TRUE(contains(message, "line 11")) << message;
  EXPECT_TRUE(contains(message, "neither a data row nor an NCCL message")) << message;
  // NCCL's own messages may sit between rows (lazy connection set-up prints them).
  EXPECT_NO_THROW((void)parse_log(std::string(kHead) + kRow1 +
                              "node01:41234:41290 [1] NCCL INFO Channel 00/32 :    0   1\n" + kRow2 + kFooter));
}

// Issue 36: a row pasted twice or rows put in another order were fitted, the repeated size
// weighing twice. nccl-tests prints each size once, ascending; a bare table (no `# nThread`
// header) keeps its order but not a repeated size.
TEST(NcclLogHardening, RepeatedOrReversedRowsAreRefused) {
  for (const std::string& rows : {std::string(kRow1) + kRow1, std::string(kRow2) + kRow1}) {
    const std::string what = error_of(std::string(kHead) + rows + kFooter);
    EXPECT_TRUE(contains(what, "run.log")) << what;
    EXPECT_TRUE(contains(what, "line 11")) << what;
    EXPECT_TRUE(contains(what, "each size once, ascending")) << what;
  }
  const std::string bare = "#       size     time   algbw   busbw\n#        (B)     (us)  (GB/s)  (GB/s)\n";
  EXPECT_EQ(parse_log(bare + "       65536    46.80    1.40    2.45\n       32768    43.83    0.75    1.31\n").rows.size(), 2u);
  EXPECT_TRUE(contains(error_of(bare + "       65536    46.80    1.40    2.45\n       32768    43.83    0.75    1.31\n"
                                       "       65536    46.80    1.40    2.45\n"),
                       "size 65536 again"));
}

TEST(NcclLogHardening, RowTimedZeroIsRefused) {
  const std::string zero =
      "     1048576        262144     float     sum      -1     0.00   52.43   52.43    N/A    19.50   53.77   53.77    N/A\n";
  const std::string message = error_of(std::string(kHead) + zero + kRow2 + kFooter);
  EXPECT_TRUE(contains(message, "line 10, column 6 (time)")) << message;
  EXPECT_TRUE(contains(message, "time must be positive")) << message;
}

TEST(NcclLogHardening, RankCountThatDisagreesWithTheLogIsRefused) {
  const NcclLog log = parse_log(std::string(kHead) + kRow1 + kRow2 + kFooter);
  try {
    require_fit_ready(log, NcclOp::kAllReduce, 7);
    ADD_FAILURE() << "a 2-rank log read as 7 ranks was accepted";
  } catch (const InputError& error) {
    EXPECT_TRUE(contains(error.what(), "lists 2 ranks")) << error.what();
  }
  EXPECT_THROW(require_fit_ready(log, NcclOp::kAllReduce, 0), InputError);
}

TEST(NcclLogHardening, UnlistedRanksStillMeetTheBusbwCheck) {
  // Without '#  Rank' lines the count cannot be compared, but busbw = algbw x 2(n-1)/n can.
  std::string text = std::string(kHead) + kRow1 + kRow2 + kFooter;
  for (const char* rank : {"#  Rank  0 Group  0 Pid  41234 on     node01 device  0 [0x18] NVIDIA H100 80GB HBM3\n",
                           "#  Rank  1 Group  0 Pid  41235 on     node01 device  1 [0x2a] NVIDIA H100 80GB HBM3\n"}) {
    text.erase(text.find(rank), std::string(rank).size());
  }
  const NcclLog log = parse_log(text);
  EXPECT_FALSE(log.ranks.has_value());
  EXPECT_NO_THROW(require_fit_ready(log, NcclOp::kAllReduce, 2));
  EXPECT_THROW(require_fit_ready(log, NcclOp::kAllReduce, 16), InputError);
}

}  // namespace
}  // namespace ctwin::calibration
