// Names work everywhere: every command that takes a scenario, acceptance plan, topology, model or
// GPU profile file takes its bundled name too, resolved in one place (api::resolve_named). Issue
// 36: `goodput default` and `accept --plan quick` read the name as a path and failed.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli_runner.hpp"

namespace {

using ctwin::cli_testing::one_line_error;
using ctwin::cli_testing::run_ctwin;

TEST(BundledNames, EveryCommandThatReadsAFileTakesABundledName) {
  const std::vector<std::string> commands = {
      "run default --network analytical",
      "scale default --gpus 64 --network analytical",
      "sweep default --grid parallel.tp=1,2 --network analytical",
      "plan default --top 1 --flow-top 0 --fix parallel.tp=2 --fix parallel.pp=2 --fix parallel.recompute=none",
      "goodput default --days 1 --runs 10 --step-time 8s",
      "size --cluster dgx-h100-superpod --gpus 64 --workload default --no-collectives --scales 1",
      "fabric --cluster dgx-h100-superpod --gpus 64",
      "accept --cluster dgx-h100-superpod --gpus 512 --plan quick",
      "gemm --gpu h100-sxm --m 4096 --n 4096 --k 4096",
      "layer --model llama3-8b --gpu h100-sxm",
  };
  for (const auto& command : commands) {
    const auto outcome = run_ctwin(command);
    EXPECT_EQ(outcome.status, 0) << command << "\n" << outcome.output;
  }
}

TEST(BundledNames, ANameThatIsNotBundledListsTheNames) {
  EXPECT_TRUE(one_line_error(run_ctwin("accept --cluster dgx-h100-superpod --gpus 16 --plan nosuch"),
                             {"--plan", "'nosuch'", "no such file or bundled acceptance plan", "quick"}));
  EXPECT_TRUE(one_line_error(run_ctwin("goodput nosuch --days 1"), {"nosuch", "bundled scenario", "default"}));
}

}  // namespace
