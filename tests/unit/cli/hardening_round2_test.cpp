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

using ctwin::cli_testing::one_line_error;
using ctwin::cli_testing::Outcome;
using ctwin::cli_testing::run_ctwin;
using ctwin::cli_testing::shell_quote;
using ctwin::cli_testing::topology;

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

}  // namespace
