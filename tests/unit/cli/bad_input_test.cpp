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

namespace {

struct Outcome {
  int status = -1;  // exit status, or -1 when the process did not exit normally
  std::string output;  // stdout and stderr together
};

std::string shell_quote(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

Outcome run_ctwin(const std::string& arguments) {
  const std::string command = shell_quote(CTWIN_BINARY) + " " + arguments + " 2>&1";
  Outcome outcome;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) {
    ADD_FAILURE() << "popen failed for " << command;
    return outcome;
  }
  char buffer[4096];
  std::size_t read = 0;
  while ((read = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) outcome.output.append(buffer, read);
  const int status = ::pclose(pipe);
  if (status != -1 && WIFEXITED(status)) outcome.status = WEXITSTATUS(status);
  return outcome;
}

std::string topology(const std::string& name) {
  return std::string(CTWIN_SOURCE_DIR) + "/topologies/" + name + ".json";
}

// The contract for bad input: status 2, one line, every `parts` in it.
::testing::AssertionResult one_line_error(const Outcome& outcome, const std::vector<std::string>& parts) {
  if (outcome.status != 2) {
    return ::testing::AssertionFailure() << "exit status " << outcome.status << ", expected 2; output:\n" << outcome.output;
  }
  const auto newlines = std::count(outcome.output.begin(), outcome.output.end(), '\n');
  if (newlines != 1 || outcome.output.back() != '\n') {
    return ::testing::AssertionFailure() << "expected exactly one line, got " << newlines << ":\n" << outcome.output;
  }
  for (const auto& part : parts) {
    if (outcome.output.find(part) == std::string::npos) {
      return ::testing::AssertionFailure() << "'" << part << "' missing from: " << outcome.output;
    }
  }
  return ::testing::AssertionSuccess();
}

class BadInput : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("ctwin-cli-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }

  std::string write(const std::string& name, const std::string& text) const {
    const auto path = dir_ / name;
    std::ofstream(path) << text;
    return path.string();
  }

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

  std::filesystem::path dir_;
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
