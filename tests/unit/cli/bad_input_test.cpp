// The `ctwin` binary on bad input: exit status 2, exactly one line of output, and the line names
// the file (or flag) and, for a file, the JSON pointer of the offending field.

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>
#include <vector>

#include "cli_runner.hpp"

namespace {

using ctwin::cli_testing::Outcome;
using ctwin::cli_testing::one_line_error;
using ctwin::cli_testing::run_ctwin;
using ctwin::cli_testing::shell_quote;
using ctwin::cli_testing::topology;

class BadInput : public ctwin::cli_testing::TempDirTest {
 protected:
  // The DGX H100 topology with one change applied by `edit`, written to a temp file.
  template <typename Edit>
  std::string edited_topology(const std::string& name, Edit edit) const {
    std::ifstream in(topology("dgx-h100-superpod"));
    nlohmann::json doc = nlohmann::json::parse(in);
    edit(doc);
    return write(name, doc.dump(2));
  }

  static std::string fabric_args(const std::string& cluster, const std::string& gpus = "16") {
    return "fabric --cluster " + shell_quote(cluster) + " --gpus " + gpus;
  }
  static std::string traffic_args(const std::string& extra) {
    return "traffic --cluster " + shell_quote(topology("dgx-h100-superpod")) + " --gpus 16 " + extra;
  }

};

TEST_F(BadInput, GoodInputSucceeds) {
  // The baseline the other cases depart from.
  const Outcome fabric = run_ctwin(fabric_args(topology("dgx-h100-superpod")));
  EXPECT_EQ(fabric.status, 0) << fabric.output;
  EXPECT_NE(fabric.output.find("dgx-h100-superpod"), std::string::npos) << fabric.output;
  const Outcome traffic = run_ctwin(traffic_args("--size 1MiB --network analytical"));
  EXPECT_EQ(traffic.status, 0) << traffic.output;
}

TEST_F(BadInput, MalformedJson) {
  const std::string file = write("malformed.json", "{\n  \"name\": \"x\",\n  \"server\": {\n}\n");
  EXPECT_TRUE(one_line_error(run_ctwin(fabric_args(file)), {file, "malformed JSON", "line"}));
}

TEST_F(BadInput, EmptyFile) {
  const std::string file = write("empty.json", "");
  EXPECT_TRUE(one_line_error(run_ctwin(fabric_args(file)), {file, "malformed JSON"}));
}

TEST_F(BadInput, UnknownKey) {
  const std::string file = edited_topology("unknown.json", [](nlohmann::json& doc) { doc["server"]["gpu_count"] = 8; });
  EXPECT_TRUE(one_line_error(run_ctwin(fabric_args(file)), {file, "/server/gpu_count", "unknown field"}));
}

TEST_F(BadInput, MissingKey) {
  const std::string file =
      edited_topology("missing.json", [](nlohmann::json& doc) { doc["fabric"]["switch"].erase("ports"); });
  EXPECT_TRUE(one_line_error(run_ctwin(fabric_args(file)), {file, "/fabric/switch/ports", "missing required field"}));
}

TEST_F(BadInput, NumberWithoutUnit) {
  const std::string file =
      edited_topology("unitless.json", [](nlohmann::json& doc) { doc["server"]["nics"]["bandwidth"] = 400; });
  EXPECT_TRUE(one_line_error(run_ctwin(fabric_args(file)), {file, "/server/nics/bandwidth", "unit", "400Gbps"}));
}

TEST_F(BadInput, UnknownUnit) {
  const std::string file =
      edited_topology("bad-unit.json", [](nlohmann::json& doc) { doc["fabric"]["link"]["bandwidth"] = "400GBs"; });
  EXPECT_TRUE(one_line_error(run_ctwin(fabric_args(file)), {file, "/fabric/link/bandwidth", "'GBs'"}));
}

TEST_F(BadInput, NegativeLatency) {
  const std::string file =
      edited_topology("negative.json", [](nlohmann::json& doc) { doc["server"]["pcie"]["latency"] = "-200ns"; });
  EXPECT_TRUE(one_line_error(run_ctwin(fabric_args(file)), {file, "/server/pcie/latency", "negative"}));
}

TEST_F(BadInput, TooManyGpus) {
  EXPECT_TRUE(one_line_error(run_ctwin(fabric_args(topology("dgx-h100-superpod"), "10000000")),
                             {"--gpus", "10000000", "dgx-h100-superpod.json", "at most 65536 GPUs"}));
}

// Regression: the node count once overflowed int for --gpus near INT_MAX and ctwin reported an
// internal error with exit status 1. See Topology.GpusNearIntMaxIsAnInputError.
TEST_F(BadInput, GpusNearIntMax) {
  EXPECT_TRUE(one_line_error(run_ctwin(fabric_args(topology("dgx-h100-superpod"), "2147483647")), {"--gpus"}));
}

TEST_F(BadInput, GpusBeyondInt) {
  // CLI11 refuses to convert it: still one line and status 2, naming the flag.
  EXPECT_TRUE(one_line_error(run_ctwin(fabric_args(topology("dgx-h100-superpod"), "99999999999")), {"--gpus"}));
}

TEST_F(BadInput, ZeroGpus) {
  EXPECT_TRUE(one_line_error(run_ctwin(fabric_args(topology("dgx-h100-superpod"), "0")), {"--gpus", "positive"}));
}

TEST_F(BadInput, NegativeGpus) {
  EXPECT_TRUE(one_line_error(run_ctwin(fabric_args(topology("dgx-h100-superpod"), "-8")), {"--gpus", "-8"}));
}

TEST_F(BadInput, NonexistentFile) {
  const std::string file = (dir_ / "does-not-exist.json").string();
  EXPECT_TRUE(one_line_error(run_ctwin(fabric_args(file)), {file, "cannot open"}));
}

TEST_F(BadInput, UnknownNetworkModel) {
  EXPECT_TRUE(one_line_error(run_ctwin(traffic_args("--network quantum")), {"--network", "'quantum'", "flow"}));
}

TEST_F(BadInput, NegativeSize) {
  EXPECT_TRUE(one_line_error(run_ctwin(traffic_args("--size -5MiB")), {"--size", "negative"}));
}

TEST_F(BadInput, SizeWithoutUnit) {
  EXPECT_TRUE(one_line_error(run_ctwin(traffic_args("--size 1048576")), {"--size", "unit"}));
}

TEST_F(BadInput, UnknownPattern) {
  EXPECT_TRUE(one_line_error(run_ctwin(traffic_args("--pattern everything")), {"--pattern", "'everything'", "alltoall"}));
}

TEST_F(BadInput, UnknownFormat) {
  EXPECT_TRUE(one_line_error(run_ctwin(fabric_args(topology("dgx-h100-superpod")) + " --format xml"), {"--format", "'xml'"}));
}

TEST_F(BadInput, OverrideWithWrongType) {
  const std::string file = topology("dgx-h100-superpod");
  EXPECT_TRUE(one_line_error(run_ctwin(fabric_args(file) + " --set fabric.switch.ports=abc"),
                             {file, "/fabric/switch/ports", "integer"}));
}

TEST_F(BadInput, OverrideWithoutValue) {
  EXPECT_TRUE(one_line_error(run_ctwin(fabric_args(topology("dgx-h100-superpod")) + " --set novalue"),
                             {"--set", "novalue"}));
}

TEST_F(BadInput, UnknownSubcommandOrOption) {
  // CLI11 reports a missing subcommand rather than naming the unknown word.
  EXPECT_TRUE(one_line_error(run_ctwin("frobnicate"), {"subcommand", "--help"}));
  EXPECT_TRUE(one_line_error(run_ctwin(fabric_args(topology("dgx-h100-superpod")) + " --bogus"), {"--bogus"}));
}

TEST_F(BadInput, MissingRequiredFlag) {
  EXPECT_TRUE(one_line_error(run_ctwin("fabric --gpus 8"), {"--cluster"}));
}

TEST(Help, FabricHelpExitsZero) {
  const Outcome outcome = run_ctwin("fabric --help");
  EXPECT_EQ(outcome.status, 0) << outcome.output;
  EXPECT_NE(outcome.output.find("--cluster"), std::string::npos) << outcome.output;
  EXPECT_NE(outcome.output.find("--gpus"), std::string::npos) << outcome.output;
  EXPECT_NE(outcome.output.find("--set"), std::string::npos) << outcome.output;
}

TEST(Help, TopLevelHelpListsSubcommands) {
  const Outcome outcome = run_ctwin("--help");
  EXPECT_EQ(outcome.status, 0) << outcome.output;
  for (const char* command : {"fabric", "traffic", "bench"}) {
    EXPECT_NE(outcome.output.find(command), std::string::npos) << command << " missing from:\n" << outcome.output;
  }
}

}  // namespace

namespace {

// ctwin collective: every flag it validates fails in one line naming the flag.
TEST(CollectiveBadInput, OneLineNamingTheFlag) {
  const std::string base = "collective --cluster " + topology("dgx-h100-superpod") + " --gpus 8 -e 1M ";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--op allreduce", "--op"},        {"--algo bogus", "--algo"},      {"--proto ll256", "--proto"},
      {"-d float7", "--dtype"},          {"-b 0", "--begin"},             {"-b 2M", "--end"},
      {"-f 1", "--factor"},              {"--network simgrid", "--network"}, {"--channels -1", "--channels"},
      {"--op alltoall --algo ring", "--algo"},
  };
  for (const auto& [arguments, flag] : cases) {
    EXPECT_TRUE(one_line_error(run_ctwin(base + arguments), {flag})) << arguments;
  }
  const std::string odd = "collective --cluster " + topology("dgx-h100-superpod") + " --gpus 24 --algo hd";
  EXPECT_TRUE(one_line_error(run_ctwin(odd), {"--algo", "power-of-two"}));
  const std::string pcie = "collective --cluster " + topology("pcie-l40s") + " --gpus 8 --algo nvls";
  EXPECT_TRUE(one_line_error(run_ctwin(pcie), {"--algo", "NVSwitch"}));
}

}  // namespace
