// The nccl-tests log reader on hand-written snippets in the layouts nccl-tests versions print
// (figures made up but self-consistent), and on the bad input calibration must refuse.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "ctwin/calibration/nccl_log.hpp"
#include "ctwin/calibration/nccl_log_check.hpp"
#include "ctwin/calibration/nccl_op.hpp"
#include "ctwin/core/error.hpp"

namespace ctwin::calibration {
namespace {

NcclLog parse(const std::string& text, std::optional<NcclOp> op = std::nullopt) {
  std::istringstream in(text);
  return parse_nccl_log(in, "snippet.log", op);
}

// Parses `text` expecting an InputError; returns its message.
std::string parse_error(const std::string& text, std::optional<NcclOp> op = std::nullopt) {
  try {
    (void)parse(text, op);
  } catch (const InputError& error) {
    return error.what();
  }
  ADD_FAILURE() << "no InputError for:\n" << text;
  return "";
}

// A 2-rank all_reduce as nccl-tests 2.13+ prints it, NCCL INFO lines interleaved, run with -c 0.
const char* const kModern = R"(# Collective test starting: all_reduce_perf
# nThread 1 nGpus 1 minBytes 1048576 maxBytes 2097152 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 0 graph: 0
#
# Using devices
#  Rank  0 Group  0 Pid  41234 on     node01 device  0 [0x18] NVIDIA H100 80GB HBM3
#  Rank  1 Group  0 Pid  41235 on     node01 device  1 [0x2a] NVIDIA H100 80GB HBM3
node01:41234:41234 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>
node01:41234:41234 [0] NCCL INFO NCCL version 2.19.3+cuda12.2
#
#                                                              out-of-place                       in-place
#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)
node01:41234:41290 [1] NCCL INFO Channel 00/32 :    0   1
     1048576        262144     float     sum      -1    20.00   52.43   52.43    N/A    19.50   53.77   53.77    N/A
     2097152        524288     float     sum      -1    30.00   69.91   69.91    N/A    30.00   69.91   69.91    N/A
# Out of bounds values : 0 OK
# Avg bus bandwidth    : 61.505
#
)";

// An old nccl-tests (before redop/root columns) with an `error` column, 4 GPUs in one process.
const char* const kOld = R"(# nThread 1 nGpus 4 minBytes 1048576 maxBytes 1048576 step: 2(factor) warmup iters: 5 iters: 20 validation: 1
#
# Using devices
#   Rank  0 Pid  12345 on       dgx1 device  0 [0x06] Tesla V100-SXM2-16GB
#   Rank  1 Pid  12345 on       dgx1 device  1 [0x07] Tesla V100-SXM2-16GB
#   Rank  2 Pid  12345 on       dgx1 device  2 [0x0a] Tesla V100-SXM2-16GB
#   Rank  3 Pid  12345 on       dgx1 device  3 [0x0b] Tesla V100-SXM2-16GB
#
#                                                     out-of-place                       in-place
#       size         count    type     time   algbw   busbw  error     time   algbw   busbw  error
#        (B)    (elements)             (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)
     1048576        262144   float    50.00   20.97   31.46  0e+00    50.00   20.97   31.46  0e+00
# Out of bounds values : 0 OK
# Avg bus bandwidth    : 31.46
)";

const char* const kHeader =
    "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
    "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)\n";

TEST(NcclLog, ReadsModernLayoutWithInfoLinesInterleaved) {
  const NcclLog log = parse(kModern);
  EXPECT_EQ(log.op, NcclOp::kAllReduce);
  EXPECT_EQ(log.threads, 1);
  EXPECT_EQ(log.gpus_per_thread, 1);
  EXPECT_EQ(log.ranks, 2);
  EXPECT_EQ(log.skipped_lines, 3);
  ASSERT_EQ(log.rows.size(), 2U);
  const NcclRow& row = log.rows[0];
  EXPECT_EQ(row.size, Bytes(1048576));
  EXPECT_EQ(row.count, 262144);
  EXPECT_EQ(row.type, "float");
  EXPECT_EQ(row.redop, "sum");
  EXPECT_EQ(row.root, -1);
  EXPECT_EQ(row.line, 14);
  EXPECT_DOUBLE_EQ(row.out_of_place.time_us, 20.0);
  EXPECT_DOUBLE_EQ(row.out_of_place.algbw_GBps, 52.43);
  EXPECT_EQ(row.out_of_place.wrong, "N/A");
  EXPECT_DOUBLE_EQ(row.out_of_place.step.time_us, 0.01);
  EXPECT_EQ(row.out_of_place.time(), SimTime::from_ps(20'000'000));
  ASSERT_TRUE(row.in_place.has_value());
  EXPECT_DOUBLE_EQ(row.in_place->time_us, 19.5);
  EXPECT_DOUBLE_EQ(row.in_place->busbw_GBps, 53.77);
  EXPECT_EQ(log.avg_busbw_GBps, 61.505);
  EXPECT_TRUE(find_inconsistencies(log, NcclOp::kAllReduce, 2).empty());
}

TEST(NcclLog, ReadsOldLayoutWithoutRedopAndRoot) {
  const NcclLog log = parse(kOld, NcclOp::kAllReduce);
  EXPECT_EQ(log.op, NcclOp::kAllReduce);
  EXPECT_EQ(log.gpus_per_thread, 4);
  EXPECT_EQ(log.ranks, 4);
  ASSERT_EQ(log.rows.size(), 1U);
  EXPECT_EQ(log.rows[0].type, "float");
  EXPECT_TRUE(log.rows[0].redop.empty());
  EXPECT_FALSE(log.rows[0].root.has_value());
  EXPECT_EQ(log.rows[0].out_of_place.wrong, "0e+00");
  EXPECT_DOUBLE_EQ(log.rows[0].in_place->busbw_GBps, 31.46);
  EXPECT_TRUE(find_inconsistencies(log, NcclOp::kAllReduce, 4).empty());
}

TEST(NcclLog, ReadsBroadcastWithRootAndAlltoallWithoutRedop) {
  const NcclLog broadcast = parse(std::string("# broadcast_perf -b 4M -e 4M -g 4 -r 0\n") + kHeader +
                                  "     4194304       1048576     float    none       0    40.00  104.86  104.86      0    40.00  104.86  104.86      0\n");
  EXPECT_EQ(broadcast.op, NcclOp::kBroadcast);
  EXPECT_EQ(broadcast.rows.at(0).root, 0);
  EXPECT_TRUE(find_inconsistencies(broadcast, NcclOp::kBroadcast, 4).empty());

  const NcclLog alltoall = parse(std::string(kHeader) +
                                 "     8388608       2097152     float    none      -1   100.00   83.89   73.40      0   100.00   83.89   73.40      0\n",
                                 NcclOp::kAlltoall);
  EXPECT_EQ(alltoall.rows.at(0).redop, "none");
  EXPECT_EQ(alltoall.rows.at(0).root, -1);
  EXPECT_TRUE(find_inconsistencies(alltoall, NcclOp::kAlltoall, 8).empty());
}

TEST(NcclLog, ReadsOutOfPlaceOnlyAndKeepsSizesInFileOrder) {
  const NcclLog log = parse(
      "#       size     time   algbw   busbw\n"
      "#        (B)     (us)  (GB/s)  (GB/s)\n"
      "       65536    46.80    1.40    2.45\n"
      "       32768    43.83    0.75    1.31\n",
      NcclOp::kAllReduce);
  ASSERT_EQ(log.rows.size(), 2U);
  EXPECT_EQ(log.rows[0].size, Bytes(65536));
  EXPECT_EQ(log.rows[1].size, Bytes(32768));
  EXPECT_FALSE(log.rows[0].in_place.has_value());
  EXPECT_FALSE(log.rows[0].count.has_value());
  EXPECT_TRUE(log.rows[0].out_of_place.wrong.empty());
  EXPECT_FALSE(log.avg_busbw_GBps.has_value());
  EXPECT_TRUE(find_inconsistencies(log, NcclOp::kAllReduce, 8).empty());
}

TEST(NcclLog, EmptyFileNamesFileAndLine) {
  const std::filesystem::path path = std::filesystem::path(::testing::TempDir()) / "ctwin_empty_nccl.log";
  std::ofstream(path).close();
  try {
    (void)read_nccl_log(path);
    FAIL() << "an empty file was accepted";
  } catch (const InputError& error) {
    EXPECT_EQ(error.source(), path.string());
    EXPECT_EQ(error.pointer(), "line 1");
    EXPECT_NE(std::string(error.what()).find("empty file"), std::string::npos) << error.what();
  }
  std::filesystem::remove(path);
  EXPECT_NE(parse_error("\n  \n").find("snippet.log: line 1: empty file"), std::string::npos);
}

TEST(NcclLog, ForeignTextIsRefused) {
  const std::string message = parse_error("model,gpus,step_time_s\nllama3-70b,1024,7.5\n# a comment\n");
  EXPECT_NE(message.find("snippet.log: line 3: not nccl-tests output"), std::string::npos) << message;
  const std::string no_rows = parse_error(std::string(kHeader) + "node01:1:1 [0] NCCL INFO done\n");
  EXPECT_NE(no_rows.find("line 3: no data rows after the column header on line 1"), std::string::npos) << no_rows;
}

TEST(NcclLog, TruncatedRowIsRefused) {
  const std::string message =
      parse_error(std::string(kHeader) + "     1048576        262144     float     sum      -1    20.00   52.43\n");
  EXPECT_NE(message.find("snippet.log: line 3, column 8 (busbw): truncated row: expected 13 fields"), std::string::npos)
      << message;
}

TEST(NcclLog, NonNumericFieldsAreRefused) {
  const std::string time = parse_error(
      std::string(kHeader) + "     1048576        262144     float     sum      -1    fast   52.43   52.43      0    19.50   53.77   53.77      0\n");
  EXPECT_NE(time.find("snippet.log: line 3, column 6 (time): expected a number, got 'fast'"), std::string::npos) << time;
  const std::string count = parse_error(
      std::string(kHeader) + "     1048576          many     float     sum      -1    20.00   52.43   52.43      0    19.50   53.77   53.77      0\n");
  EXPECT_NE(count.find("line 3, column 2 (count): expected an integer"), std::string::npos) << count;
  const std::string average = parse_error(std::string(kModern) + "# Avg bus bandwidth    : n/a\n");
  EXPECT_NE(average.find("line 19: expected a number, got 'n/a'"), std::string::npos) << average;
}

TEST(NcclLog, OpNamedByTheLogMustMatchTheCaller) {
  const std::string message = parse_error(kModern, NcclOp::kAllGather);
  EXPECT_NE(message.find("line 1: the log names all_reduce_perf but is read as all_gather"), std::string::npos)
      << message;
  const std::string unknown = parse_error(std::string("# hypercube_perf -b 8\n") + kModern);
  EXPECT_NE(unknown.find("unsupported nccl-tests binary 'hypercube_perf'"), std::string::npos) << unknown;
}

TEST(NcclLog, InconsistentFiguresAreFoundWithTheirLine) {
  std::string edited = kModern;
  edited.replace(edited.find("69.91   69.91    N/A    30.00"), 13, "69.91   75.00");
  const NcclLog log = parse(edited);
  const auto found = find_inconsistencies(log, NcclOp::kAllReduce, 2);
  ASSERT_EQ(found.size(), 1U);
  EXPECT_EQ(found[0].line, 15);
  EXPECT_EQ(found[0].field, "busbw");
  EXPECT_EQ(found[0].group, "out-of-place");
  try {
    require_consistent(log, NcclOp::kAllReduce, 2);
    FAIL() << "an edited log passed";
  } catch (const InputError& error) {
    EXPECT_EQ(error.pointer(), "line 15");
  }
  // The same log read as an 8-rank all_reduce: every busbw is off by the factor.
  EXPECT_EQ(find_inconsistencies(parse(kModern), NcclOp::kAllReduce, 8).size(), 4U);
}

TEST(NcclOp, BinaryNamesNameTheCollective) {
  EXPECT_EQ(parse_nccl_op("reduce_scatter_perf_mpi"), NcclOp::kReduceScatter);
  EXPECT_EQ(parse_nccl_op("sendrecv_perf"), NcclOp::kSendRecv);
  EXPECT_EQ(parse_nccl_op("alltoall"), NcclOp::kAlltoall);
  EXPECT_EQ(parse_nccl_op("gather"), std::nullopt);
}

}  // namespace
}  // namespace ctwin::calibration
