// Issue 36 (the second hostile-input probe), through the command as a user runs it: each input
// that crashed, ended in an internal error or was taken silently now ends in one line naming
// the input and exit 2 (or, for a file name that is not UTF-8, in the report itself). The
// library-level tests sit with each reader; these are the examples of the issue, kept small.

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <iterator>
#include <string>

#include "cli_runner.hpp"
#include "source_root.hpp"

namespace {

// The runner, the one-line contract and the temp folders of cli_runner.hpp.
using namespace ctwin::cli_testing;  // NOLINT(google-build-using-namespace): a test file's own helpers

class HardeningRound2 : public ctwin::cli_testing::TempDirTest {};

// Crash: 100,000 nested '[' segfaulted `run` (a recursive copy inside api::Scenario).
TEST_F(HardeningRound2, DeeplyNestedScenarioIsOneLine) {
  const std::string file = write("deep.json", "{\"gpus\": " + std::string(100000, '[') + std::string(100000, ']') + "}");
  EXPECT_TRUE(one_line_error(run_ctwin("run " + shell_quote(file)), {file, "nested deeper than 256"}));
}

// Crash: a pipeline_layout of 30,000 '(' segfaulted `run` and `model`.
TEST_F(HardeningRound2, DeeplyNestedPipelineLayoutIsOneLine) {
  const std::string layout = std::string(30000, '(') + "t" + std::string(30000, ')');
  EXPECT_TRUE(one_line_error(run_ctwin("run " + shell_quote(ctwin::kDefaultScenario) + " --set " + shell_quote("parallel.pipeline_layout=" + layout)),
                             {"pipeline_layout", "nested deeper than 16"}));
}

// Internal error: `--degrade nic:3=1e-12` tripped the drain queue's assertion.
TEST_F(HardeningRound2, ANicAtATrillionthIsAFailedPart) {
  EXPECT_TRUE(one_line_error(run_ctwin("run " + shell_quote(ctwin::kDefaultScenario) + " --degrade nic:3=1e-12"),
                             {"--degrade", "nic:3=1e-12", "failed part"}));
}

// Internal error: a legal file name that is not UTF-8 ended `calibrate` in nlohmann's
// type_error.316, writing the profile that names its sweep. The name is written with U+FFFD for
// the byte it cannot show.
TEST_F(HardeningRound2, AFileNameThatIsNotUtf8IsWrittenNotFatal) {
  const std::string csv = write("sweep-\xff.csv", "m,n,k,dtype,time_us\n4096,4096,4096,bf16,200\n8192,4096,4096,bf16,400\n");
  const std::string profile = write("profile.json", "");
  const Outcome outcome = run_ctwin("calibrate --gemm " + shell_quote(csv) + " --base h100-sxm -o " + shell_quote(profile) +
                                    " --format json");
  ASSERT_EQ(outcome.status, 0) << outcome.output;
  EXPECT_NO_THROW((void)nlohmann::json::parse(outcome.output));
  std::ifstream in(profile);
  const std::string written((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(written.find("sweep-\xef\xbf\xbd.csv"), std::string::npos) << written;
}

// Wrong exit code: `size` exited 0 when no build option could be built.
TEST_F(HardeningRound2, SizeWithNoValidOptionExitsTwo) {
  const Outcome outcome = run_ctwin("size --cluster " + shell_quote(topology("dgx-h100-superpod")) +
                                    " --gpus 1000000 --set fabric.max_tiers=2 --no-collectives");
  EXPECT_EQ(outcome.status, 2) << outcome.output;
  EXPECT_NE(outcome.output.find("none of the 1 build options can be built"), std::string::npos) << outcome.output;
}

// Hang without a word: `plan --top 1000000 --jobs 1` replayed every candidate and said nothing.
// Past the candidates no bound can prune, so the plan says how many replays it will make before
// it starts; past 10^6 the request is refused.
TEST_F(HardeningRound2, PlanTopPastItsCandidatesSaysSoBeforeReplaying) {
  const std::string small = "plan " + shell_quote(ctwin::kDefaultScenario) +
                            " --flow-top 0 --jobs 1 --fix parallel.tp=2 --fix parallel.pp=2 --fix parallel.recompute=none"
                            " --fix parallel.zero=1 --fix training.micro_batch=1 --fix parallel.cp=1";
  const Outcome capped = run_ctwin(small + " --top 1000000");
  ASSERT_EQ(capped.status, 0) << capped.output;
  EXPECT_NE(capped.output.find("ctwin plan: note: --top 1000000 is more than the 7 valid candidates"), std::string::npos) << capped.output;
  EXPECT_NE(capped.output.find("each replayed (no bound can prune), 1 at a time"), std::string::npos) << capped.output;
  EXPECT_EQ(run_ctwin(small + " --top 3").output.find("note:"), std::string::npos);
  EXPECT_TRUE(one_line_error(run_ctwin(small + " --top 1000001"), {"--top", "1000001"}));
}

// Wrapped integers: `goodput --seed -1` ran with seed 2^64 - 1, and 2^64 was clamped to it.
TEST_F(HardeningRound2, ASeedIsTakenAsWrittenOrRefused) {
  const std::string goodput = "goodput " + shell_quote(ctwin::kDefaultScenario) + " --days 1 --runs 10 --step-time 8s";
  for (const char* seed : {"-1", "18446744073709551616", "1.5", "abc"}) {
    EXPECT_TRUE(one_line_error(run_ctwin(goodput + " --seed " + seed), {"--seed", "a whole number from 0"})) << seed;
  }
  const Outcome largest = run_ctwin(goodput + " --seed 18446744073709551615");
  ASSERT_EQ(largest.status, 0) << largest.output;
  EXPECT_NE(largest.output.find("seed 18446744073709551615"), std::string::npos) << largest.output;
}

// Internal error: a file name longer than the system takes (a 600-character '[[[...' --cluster)
// made std::filesystem throw filesystem_error in name resolution.
TEST_F(HardeningRound2, AFileNameTooLongForTheSystemIsOneLine) {
  const std::string name = std::string(300, '[') + std::string(300, ']');
  EXPECT_TRUE(one_line_error(run_ctwin("fabric --cluster " + shell_quote(name) + " --gpus 8"), {"[[["}));
  EXPECT_TRUE(one_line_error(run_ctwin("run " + shell_quote(std::string(5000, 'a') + ".json")), {"aaa"}));
}

// Absurd value taken: a GEMM efficiency of 1e300 at a launch-bound point of the table passed the
// peak check (the estimate there is the launch overhead's), and fed the interpolation.
TEST_F(HardeningRound2, AGemmEfficiencyAHundredTimesTheRooflineIsRefused) {
  std::ifstream in(ctwin::kRoot + "/models/gpus/b200.json");
  nlohmann::json document = nlohmann::json::parse(in);
  document["gemm_table"]["fp8"]["efficiency"][0] = 1e300;
  const std::string file = write("b200-fast.json", document.dump());
  EXPECT_TRUE(one_line_error(run_ctwin("gemm --gpu " + shell_quote(file) + " --m 4096 --n 4096 --k 4096"),
                             {"/gemm_table/fp8/efficiency", "at most 100"}));
}

}  // namespace
