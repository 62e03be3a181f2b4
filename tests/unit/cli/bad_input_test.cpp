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

// The runner, the one-line contract and the temp folders of cli_runner.hpp.
using namespace ctwin::cli_testing;  // NOLINT(google-build-using-namespace): a test file's own helpers

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

TEST_F(BadInput, RoutingFlagIsEcmpOrAdaptive) {
  // --routing on each command that takes it: a bad value names the flag, not the topology file.
  const std::string h100 = shell_quote(topology("dgx-h100-superpod"));
  const std::string scenario = shell_quote(std::string(CTWIN_SOURCE_DIR) + "/scenarios/default.json");
  for (const std::string& command : {"collective --cluster " + h100 + " --gpus 16 -b 1M -e 1M",
                                     "accept --cluster " + h100 + " --gpus 16", "run " + scenario}) {
    EXPECT_TRUE(one_line_error(run_ctwin(command + " --routing random"), {"--routing", "ecmp or adaptive", "random"}))
        << command;
  }
}

TEST_F(BadInput, RailSpineGroupsWhereTheyCannotBe) {
  // Per-rail spine groups on a top-of-rack fabric, and a group larger than a spine's downlinks.
  const std::string h100 = topology("dgx-h100-superpod");
  EXPECT_TRUE(one_line_error(
      run_ctwin(fabric_args(h100) + " --set fabric.kind=top_of_rack --set fabric.spine_groups=per_rail"),
      {h100, "/fabric/spine_groups", "rail_optimized"}));
  const std::string gb200 = topology("gb200-nvl72");
  EXPECT_TRUE(one_line_error(run_ctwin(fabric_args(gb200, "576") + " --set fabric.leaves_per_spine_group=40"),
                             {gb200, "/fabric/leaves_per_spine_group"}));
}

// A GPU ctwin has no profile for still builds and summarises, but no collective is planned on
// it with a guessed architecture: one line naming the topology, its server's GPU and the fix.
TEST_F(BadInput, CollectiveOnAGpuWithoutProfile) {
  const std::string h800 = edited_topology("h800.json", [](nlohmann::json& doc) { doc["server"]["gpu"] = "h800"; });
  const Outcome fabric = run_ctwin(fabric_args(h800));
  EXPECT_EQ(fabric.status, 0) << fabric.output;
  EXPECT_TRUE(one_line_error(run_ctwin("collective --cluster " + shell_quote(h800) +
                                       " --gpus 16 --op all_reduce -b 1M -e 1M --network analytical"),
                             {h800, "/server/gpu", "h800", "\"arch\""}));
}

TEST_F(BadInput, DragonflyTheGlobalPortsCannotWireAndUnknownKinds) {
  // More groups than a*h + 1, a fat-tree field on a dragonfly, and a kind no Topology builds.
  const std::string dragonfly = topology("slingshot-a100-dragonfly");
  EXPECT_TRUE(one_line_error(run_ctwin(fabric_args(dragonfly) + " --set fabric.groups=600"),
                             {dragonfly, "/fabric/groups", "at most 513 groups"}));
  EXPECT_TRUE(one_line_error(run_ctwin(fabric_args(dragonfly) + " --set fabric.nodes_per_su=4"),
                             {dragonfly, "/fabric/nodes_per_su"}));
  EXPECT_TRUE(one_line_error(run_ctwin(fabric_args(dragonfly) + " --set fabric.kind=torus"),
                             {dragonfly, "/fabric/kind", "torus"}));
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
                             {"10000000", "dgx-h100-superpod.json", "/fabric/switch/ports", "at most 65536 GPUs"}));
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

namespace {

std::string write_temp(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / name;
  std::ofstream(path) << text;
  return path.string();
}

// ctwin calibrate --nccl and ctwin validate: a truncated or foreign log, a missing cluster, a
// log without rank count, a bad calibration file: one line naming the file or flag, exit 2.
TEST(NcclCalibrateBadInput, OneLineNamingFileOrFlag) {
  const std::string logs = std::string(CTWIN_SOURCE_DIR) + "/validation/nccl/logs/";
  const std::string good = logs + "aic-h100_sxm-all_reduce-half-8gpu.log";
  const std::string base = "calibrate --cluster " + topology("dgx-h100-superpod") + " -o /tmp/ctwin_cal_test.json ";
  std::string truncated_text;
  {
    std::ifstream in(good);
    std::string line;
    for (int i = 0; i < 8 && std::getline(in, line); ++i) truncated_text += line + "\n";
  }
  const std::string truncated = write_temp("ctwin_truncated.log", truncated_text);
  EXPECT_TRUE(one_line_error(run_ctwin(base + "--nccl " + truncated + "@8"), {truncated, "line"}));
  const std::string foreign = topology("dgx-h100-superpod");
  EXPECT_TRUE(one_line_error(run_ctwin(base + "--nccl " + foreign + "@8"), {foreign, "not nccl-tests output"}));
  EXPECT_TRUE(one_line_error(run_ctwin(base + "--nccl " + good), {good, "--gpus"}));
  EXPECT_TRUE(one_line_error(run_ctwin(base + "--nccl " + good + "@x"), {"@RANKS"}));
  EXPECT_TRUE(one_line_error(run_ctwin("calibrate -o /tmp/x.json --nccl " + good + "@8"), {"--cluster"}));
  EXPECT_TRUE(one_line_error(run_ctwin(base + "--nccl " + good + "@8 --algo nvlsring"), {"--algo"}));

  const std::string calibration = write_temp("ctwin_bad_calibration.json", R"({"ctwin_calibration": "nccl",
    "link_efficiency": {"pcie": 0.7, "nic": 1, "switch_link": 1},
    "collectives": {"latency_scale": {"ll": 1, "ll128": 1, "simple": "fast"}, "ll_share_scale": 1,
                    "ll128_share_scale": 1, "nvls_scale": 1}})");
  EXPECT_TRUE(one_line_error(
      run_ctwin("collective --cluster " + topology("dgx-h100-superpod") + " --gpus 8 --calibration " + calibration),
      {calibration, "/collectives/latency_scale/simple"}));
  EXPECT_TRUE(one_line_error(run_ctwin("validate --role healthy"), {"--role"}));
  EXPECT_TRUE(one_line_error(run_ctwin("validate --only no-such-setup"), {"--only"}));
}

// The round trip a user makes: calibrate on one log, apply the file to a prediction.
TEST(NcclCalibrate, WritesAFileThatCollectiveApplies) {
  const std::string log = std::string(CTWIN_SOURCE_DIR) + "/validation/nccl/logs/nccltests-290-h100-1node-allreduce-nvls.log";
  const std::string output = (std::filesystem::temp_directory_path() / "ctwin_cal_roundtrip.json").string();
  const auto fitted = run_ctwin("calibrate --cluster " + topology("dgx-h100-superpod") + " --nccl " + log + "@8 -o " + output);
  ASSERT_EQ(fitted.status, 0) << fitted.output;
  EXPECT_NE(fitted.output.find("NVLS efficiency scale"), std::string::npos) << fitted.output;
  const std::string predict = "collective --cluster " + topology("dgx-h100-superpod") + " --gpus 8 -b 4G -e 4G --format csv";
  const auto defaults = run_ctwin(predict);
  const auto calibrated = run_ctwin(predict + " --calibration " + output);
  ASSERT_EQ(calibrated.status, 0) << calibrated.output;
  EXPECT_NE(defaults.output, calibrated.output) << "the calibration changes the prediction";
  std::filesystem::remove(output);
}

}  // namespace

namespace {

TEST(ScaleBadInput, OneLineNamingTheFlag) {
  const std::string scenario = std::string(CTWIN_SOURCE_DIR) + "/scenarios/default.json";
  EXPECT_TRUE(one_line_error(run_ctwin("scale " + scenario + " --gpus 8,x"), {"--gpus"}));
  EXPECT_TRUE(one_line_error(run_ctwin("scale " + scenario + " --gpus 64,16"), {"--gpus", "ascending"}));
  EXPECT_TRUE(one_line_error(run_ctwin("scale " + scenario + " --gpus 6"), {"--gpus"}));
  EXPECT_TRUE(one_line_error(run_ctwin("scale " + scenario + " --gpus 16 --network ns3"), {"--network"}));
  const auto ok = run_ctwin("scale " + scenario + " --gpus 16,32 --network analytical --format csv");
  EXPECT_EQ(ok.status, 0) << ok.output;
}

// ctwin bench: a bad case or repeat count fails in one line; --repeat keeps one real run, the
// median, and says over how many it was taken.
TEST(BenchBadInput, OneLineNamingTheFlag) {
  EXPECT_TRUE(one_line_error(run_ctwin("bench --case nope"), {"--case", "nope"}));
  EXPECT_TRUE(one_line_error(run_ctwin("bench --case engine --repeat 0"), {"--repeat"}));
  EXPECT_TRUE(one_line_error(run_ctwin("bench --case engine --repeat -2"), {"--repeat"}));
  const auto engine = run_ctwin("bench --case engine --format json");
  ASSERT_EQ(engine.status, 0) << engine.output;
  const auto engine_rows = nlohmann::json::parse(engine.output);
  ASSERT_EQ(engine_rows.size(), 1u) << engine.output;
  EXPECT_EQ(engine_rows[0]["case"], "engine");
  EXPECT_EQ(engine_rows[0]["events"], 5000000);
  // Repeats on the cheapest case: the engine's 5 M events take seconds a run under ASan.
  const auto repeated = run_ctwin("bench --case fabric-build-two-site-16k --repeat 3 --format json");
  ASSERT_EQ(repeated.status, 0) << repeated.output;
  const auto rows = nlohmann::json::parse(repeated.output);
  ASSERT_EQ(rows.size(), 1u) << repeated.output;
  EXPECT_EQ(rows[0]["case"], "fabric-build-two-site-16k");
  EXPECT_NE(rows[0]["what"].get<std::string>().find("median of 3 runs"), std::string::npos) << repeated.output;
}

}  // namespace

namespace {

TEST(ModelBadInput, UnevenStagesThatDoNotSplitNameTheFlag) {
  const std::string base = "model --model llama3-405b --tp 8 --pp 16 --gpus 16384 ";
  EXPECT_TRUE(one_line_error(run_ctwin(base), {"--pp", "126"}));
  EXPECT_TRUE(one_line_error(run_ctwin(base + "--first-stage-layers 6 --last-stage-layers 7"), {"--first-stage-layers"}));
  const auto ok = run_ctwin(base + "--first-stage-layers 7 --last-stage-layers 7");
  EXPECT_EQ(ok.status, 0) << ok.output;
}

}  // namespace

namespace {

// A scenario's software stack (docs/input-formats.md "Software stack"): an unknown name, an unknown
// field of a stack, a recipe that does not match the precision: one line naming the field, exit 2.
TEST(StackBadInput, UnknownStackOrFieldIsOneLineNamingIt) {
  const std::string scenario = std::string(CTWIN_SOURCE_DIR) + "/scenarios/qwen3-30b-a3b-h100-16.json";
  const std::string base = "run " + shell_quote(scenario) + " --network analytical ";
  EXPECT_TRUE(one_line_error(run_ctwin(base + "--set 'stack=\"mcore-te-fp8cs-alltopall\"'"),
                             {scenario, "/stack", "mcore-te-fp8cs-alltoall"}));
  EXPECT_TRUE(one_line_error(run_ctwin(base + "--set 'stack=\"mcore-te-bf16-alltoall\"'"), {scenario, "/stack", "fp8"}));
  const std::string inline_stack =
      R"({"name":"x","framework":"f","version":"v","precision_recipe":"mxfp8","dispatcher":"alltoall",)"
      R"("cuda_graphs":false,"permute_fusion":true,"dispatcher_sync":true,"quantize":{"bytes_forward":1,)"
      R"("bytes_backward":0,"launches":1},"host_after_sink":"1us"})";
  EXPECT_TRUE(one_line_error(run_ctwin(base + "--set " + shell_quote("stack=" + inline_stack)), {"/stack", "/host_after_sink"}));
}

}  // namespace

namespace {

// validate and calibrate --trace: the scenario is required, and the flags of other modes are refused by name.
TEST(ValidateTraceBadInput, OneLineNamingTheFlag) {
  EXPECT_TRUE(one_line_error(run_ctwin("validate --trace nope.json"), {"--scenario"}));
  EXPECT_TRUE(one_line_error(run_ctwin("validate --scenario default"), {"--scenario", "--trace"}));
  EXPECT_TRUE(one_line_error(run_ctwin("validate --trace nope.json --scenario default --jobs 2"), {"--jobs"}));
  EXPECT_TRUE(one_line_error(run_ctwin("validate --trace nope.json --scenario default"), {"nope.json"}));
  EXPECT_TRUE(one_line_error(run_ctwin("calibrate --scenario default"), {"--scenario", "--trace"}));
  EXPECT_TRUE(one_line_error(run_ctwin("calibrate --trace nope.json --base h100-sxm -o x.json"), {"--scenario"}));
  EXPECT_TRUE(one_line_error(run_ctwin("calibrate --trace nope.json --layers l.json"), {"--trace", "one thing at a time"}));
}

}  // namespace
