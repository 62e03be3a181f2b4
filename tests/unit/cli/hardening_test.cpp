// Issue 24's table, row by row: each input that used to crash, hang, print nonsense or be
// taken silently now gets one line naming the input and field, and exit 2 (or, for
// --flows-per-pair, the documented behaviour). The range policy behind them is
// src/ctwin/core/limits.hpp; docs/hardening.md lists it.

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "cli_runner.hpp"
#include "source_root.hpp"

namespace {

// The runner, the one-line contract and the temp folders of cli_runner.hpp.
using namespace ctwin::cli_testing;  // NOLINT(google-build-using-namespace): a test file's own helpers

std::string text_of(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Replaces the first occurrence of `from` in `text`; fails the test if there is none.
std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

// A 2-rank all_reduce as nccl-tests prints it (the figures are self-consistent).
const char* const kLogHead = R"(# Collective test starting: all_reduce_perf
# nThread 1 nGpus 1 minBytes 1048576 maxBytes 4194304 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 0 graph: 0
#
# Using devices
#  Rank  0 Group  0 Pid  41234 on     node01 device  0 [0x18] NVIDIA H100 80GB HBM3
#  Rank  1 Group  0 Pid  41235 on     node01 device  1 [0x2a] NVIDIA H100 80GB HBM3
#
#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)
     1048576        262144     float     sum      -1    20.00   52.43   52.43    N/A    19.50   53.77   53.77    N/A
     2097152        524288     float     sum      -1    30.00   69.91   69.91    N/A    30.00   69.91   69.91    N/A
)";
const char* const kLastRow =
    "     4194304       1048576     float     sum      -1    50.00   83.89   83.89    N/A    50.00   83.89   83.89    N/A\n";
const char* const kFooter = "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 68.74\n#\n";

class Hardening : public ctwin::cli_testing::TempDirTest {
 protected:
  std::string dgx_text() const { return text_of(topology("dgx-h100-superpod")); }
  static std::string fabric_args(const std::string& cluster) {
    return "fabric --cluster " + shell_quote(cluster) + " --gpus 16";
  }
  static std::string run_args(const std::string& extra) { return "run " + shell_quote(ctwin::kDefaultScenario) + " " + extra; }
};

// Row 1: `1e999` as any JSON number was "internal error: ... number overflow".
TEST_F(Hardening, JsonNumberOverflowNamesTheFile) {
  for (const std::string number : {"1e999", "-1e999"}) {
    const std::string file = write("overflow.json", replaced(dgx_text(), "\"cpus\": 2", "\"cpus\": " + number));
    EXPECT_TRUE(one_line_error(run_ctwin(fabric_args(file)), {file, "out of range"})) << number;
  }
}

// Row 2: a 1 bps NIC reached an internal check in the flow model's drain queue.
TEST_F(Hardening, AbsurdlySlowNicIsRefusedWhereItIsRead) {
  for (const std::string rate : {"1bps", "1kbps", "0.5Mbps"}) {
    EXPECT_TRUE(one_line_error(run_ctwin(run_args("--set cluster.server.nics.bandwidth=" + rate)),
                               {"/server/nics/bandwidth", "outside [1 Mbps, 100 Tbps]"}))
        << rate;
  }
}

// Row 3: a sequence of 2^30 tokens scheduled events in the past; one of 2^24 (inside the
// range) still asks for a step far beyond what int64 picoseconds hold.
TEST_F(Hardening, HugeSequenceIsRefusedBeforeTheReplay) {
  EXPECT_TRUE(one_line_error(run_ctwin(run_args("--set training.seq_len=1073741824")),
                             {ctwin::kDefaultScenario, "/training/seq_len", "out of range"}));
  EXPECT_TRUE(one_line_error(run_ctwin(run_args("--set training.seq_len=16777216")),
                             {"/training/seq_len", "s of compute per GPU"}));
}

// Row 4: -f 1.0000001 swept hundreds of millions of sizes with no output.
TEST_F(Hardening, CollectiveSweepWithTooManyRowsIsRefused) {
  EXPECT_TRUE(one_line_error(run_ctwin("collective --cluster " + shell_quote(topology("dgx-h100-superpod")) +
                                       " --gpus 16 -b 8 -e 8G -f 1.0000001 --network analytical"),
                             {"--factor", "more than 4096"}));
}

// Row 5: `layer --seq 1073741824` printed negative kernel times.
TEST_F(Hardening, LayerWithHugeSequenceIsRefused) {
  EXPECT_TRUE(one_line_error(run_ctwin("layer --model llama3-8b --seq 1073741824"), {"--seq", "2^24"}));
  // Inside the bound, a step of the whole model (which the layer's scenario stands for) still
  // has to fit the simulated clock.
  EXPECT_TRUE(one_line_error(run_ctwin("layer --model llama3-8b --seq 16777216"), {"/training/seq_len", "s of compute"}));
  // A million tokens run, and every time printed is positive.
  const Outcome at_bound = run_ctwin("layer --model llama3-8b --seq 1048576 --format json");
  ASSERT_EQ(at_bound.status, 0) << at_bound.output;
  const auto out = nlohmann::json::parse(at_bound.output);
  for (const auto& kernel : out.at("kernels")) {
    EXPECT_GE(kernel.at("forward_us").get<double>(), 0) << kernel;
    EXPECT_GE(kernel.at("backward_us").get<double>(), 0) << kernel;
  }
}

// Row 6: a 1e9-cubed GEMM printed 0.000 us and 2e27 TFLOP/s.
TEST_F(Hardening, GemmBeyondTheGpuIsRefused) {
  EXPECT_TRUE(one_line_error(run_ctwin("gemm --gpu h100-sxm --m 1000000000 --n 1000000000 --k 1000000000"),
                             {"--m/--n/--k", "outside [1, 16777216]"}));
  EXPECT_TRUE(one_line_error(run_ctwin("gemm --gpu h100-sxm --m 4611686018427387904 --n 8 --k 8"),
                             {"--m/--n/--k", "M = 4611686018427387904"}));
  // Each dimension in range, the operands too large for 80 GB.
  EXPECT_TRUE(one_line_error(run_ctwin("gemm --gpu h100-sxm --m 1048576 --n 1048576 --k 1024"),
                             {"--m/--n/--k", "more than"}));
  const std::string csv = write("shapes.csv", "m,n,k,dtype\n4096,4096,4096,bf16\n99999999,8,8,bf16\n");
  EXPECT_TRUE(one_line_error(run_ctwin("gemm --gpu h100-sxm --shapes " + shell_quote(csv)), {csv, "line 3", "2^24"}));
}

// Row 7: an 8192^3 GEMM timed at 0.001 us was fitted, and `run` then printed MFU 149%.
TEST_F(Hardening, CalibrationFasterThanPeakIsRefused) {
  const std::string csv = write("sweep.csv", "m,n,k,dtype,time_us\n4096,4096,4096,bf16,250\n8192,8192,8192,bf16,0.001\n");
  const std::string out = (dir_ / "profile.json").string();
  EXPECT_TRUE(one_line_error(
      run_ctwin("calibrate --gemm " + shell_quote(csv) + " --base h100-sxm -o " + shell_quote(out)),
      {csv, "line 3", "efficiency above 100% is impossible"}));
  EXPECT_FALSE(std::filesystem::exists(out));
}

// Row 8: `"gpus": 64, "gpus": 128` silently took the last.
TEST_F(Hardening, DuplicateKeyIsAnError) {
  const std::string file = write("twice.json", replaced(dgx_text(), "\"cpus\": 2", "\"cpus\": 2, \"cpus\": 4"));
  EXPECT_TRUE(one_line_error(run_ctwin(fabric_args(file)), {file, "/server/cpus", "key given twice"}));
  EXPECT_TRUE(one_line_error(run_ctwin(run_args("--set 'parallel={\"tp\": 1, \"tp\": 2}'")),
                             {"--set", "/tp", "key given twice"}));
}

// Found by fuzz_overrides: `--set` bytes that are not UTF-8 became an internal error when an
// error message quoted them.
TEST_F(Hardening, SetValueThatIsNotUtf8) {
  EXPECT_TRUE(one_line_error(run_ctwin(run_args("--set 'training.seq_len=40\xff\xff'")), {"--set", "not valid UTF-8"}));
}

// Row 9: a 1e30 Gbps NIC was taken and printed as 1e+27 Tbps.
TEST_F(Hardening, AbsurdlyFastNicIsRefused) {
  const std::string file =
      write("fast.json", replaced(dgx_text(), "\"bandwidth\": \"400Gbps\"", "\"bandwidth\": \"1e30Gbps\""));
  EXPECT_TRUE(one_line_error(run_ctwin(fabric_args(file)), {file, "/bandwidth", "outside [1 Mbps, 100 Tbps]"}));
}

// Row 11: FILE@0 was "does not list its ranks", the wrong reason.
TEST_F(Hardening, NcclLogAtZeroRanksGivesTheReason) {
  const std::string log = write("run.log", std::string(kLogHead) + kLastRow + kFooter);
  EXPECT_TRUE(one_line_error(run_ctwin("calibrate --cluster " + shell_quote(topology("dgx-h100-superpod")) +
                                       " --nccl " + shell_quote(log + "@0") + " -o " +
                                       shell_quote((dir_ / "c.json").string())),
                             {log + "@0", "at least 1"}));
}

// Row 10 through the command line: a log cut at a row boundary is refused before any fit.
TEST_F(Hardening, TruncatedNcclLogIsRefusedByCalibrate) {
  const std::string log = write("cut.log", kLogHead);
  EXPECT_TRUE(one_line_error(run_ctwin("calibrate --cluster " + shell_quote(topology("dgx-h100-superpod")) +
                                       " --nccl " + shell_quote(log) + " -o " + shell_quote((dir_ / "c.json").string())),
                             {log, "truncated"}));
}

// Row 12: a directory where a file belongs was "malformed JSON" or "empty file".
TEST_F(Hardening, DirectoryWhereAFileBelongs) {
  const std::string folder = dir_.string();
  EXPECT_TRUE(one_line_error(run_ctwin(fabric_args(folder)), {folder, "is a directory"}));
  EXPECT_TRUE(one_line_error(run_ctwin("gemm --gpu h100-sxm --shapes " + shell_quote(folder)), {folder, "is a directory"}));
  EXPECT_TRUE(one_line_error(run_ctwin("calibrate --cluster " + shell_quote(topology("dgx-h100-superpod")) +
                                       " --nccl " + shell_quote(folder + "@2") + " -o " +
                                       shell_quote((dir_ / "c.json").string())),
                             {folder, "is a directory"}));
  EXPECT_TRUE(one_line_error(run_ctwin("run " + shell_quote(folder)), {folder, "is a directory"}));
}

// Row 13: each of K flows carried the whole --size; now they split it, as the README says.
TEST_F(Hardening, FlowsPerPairSplitTheTransfer) {
  const std::string base = "traffic --cluster " + shell_quote(topology("dgx-h100-superpod")) +
                           " --gpus 16 --pattern rail_ring --size 1000001B --format json --network flow";
  const Outcome one = run_ctwin(base);
  const Outcome four = run_ctwin(base + " --flows-per-pair 4");
  ASSERT_EQ(one.status, 0) << one.output;
  ASSERT_EQ(four.status, 0) << four.output;
  const auto a = nlohmann::json::parse(one.output);
  const auto b = nlohmann::json::parse(four.output);
  EXPECT_EQ(a.at("bytes_delivered"), 16 * 1000001);
  EXPECT_EQ(b.at("bytes_delivered"), a.at("bytes_delivered"));
  EXPECT_EQ(b.at("transfers").get<int>(), 4 * a.at("transfers").get<int>());
  // Four flows over the same rail move the same bytes no faster than one.
  EXPECT_GE(b.at("makespan_us").get<double>(), a.at("makespan_us").get<double>() * 0.999);
  // The run time is left out unless asked for, so the output is the same bytes every time.
  EXPECT_FALSE(a.contains("wall_s"));
  const Outcome timed = run_ctwin(base + " --timing");
  ASSERT_EQ(timed.status, 0) << timed.output;
  EXPECT_TRUE(nlohmann::json::parse(timed.output).contains("wall_s"));
  EXPECT_TRUE(one_line_error(run_ctwin(base + " --flows-per-pair 100000"), {"--flows-per-pair", "64"}));
}

// Row 14: 562 TB buffers and 100,000 channels were taken.
TEST_F(Hardening, CollectiveSizesAndChannelsHaveBounds) {
  const std::string base = "collective --cluster " + shell_quote(topology("dgx-h100-superpod")) +
                           " --gpus 16 --network analytical";
  EXPECT_TRUE(one_line_error(run_ctwin(base + " -b 8 -e 1000T"), {"--end", "above 1 TiB"}));
  EXPECT_TRUE(one_line_error(run_ctwin(base + " -b 8 -e 8M --channels 100000"), {"--channels", "64"}));
}

// Row 15: `model --gpus 1000000000` was taken (dp 125M) while `run` caps at 2^24.
TEST_F(Hardening, ModelGpusHaveTheRunBound) {
  EXPECT_TRUE(one_line_error(run_ctwin("model --model llama3-8b --tp 8 --gpus 1000000000"), {"--gpus", "2^24"}));
  // Parallel sizes whose product overflows int64 are refused, not multiplied.
  EXPECT_TRUE(one_line_error(run_ctwin("model --model llama3-8b --tp 1073741824 --pp 1073741824 --cp 1073741824"),
                             {"--gpus", "2^24"}));
}

}  // namespace
