// What a new user trips over, from the outside: bundled names wherever a file is accepted, "-"
// for standard input, CSV a tool can read (one table, one header), a run's JSON saying what
// produced it, scaling studies that answer at every size, and no progress noise in a pipe.

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sstream>
#include <string>
#include <vector>

#include "cli_runner.hpp"
#include "source_root.hpp"

namespace {

using ctwin::cli_testing::one_line_error;
using ctwin::cli_testing::run_ctwin;
using ctwin::cli_testing::shell_quote;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::size_t fields(const std::string& csv_line) {
  std::size_t count = 1;
  bool quoted = false;
  for (const char c : csv_line) {
    if (c == '"') quoted = !quoted;
    if (c == ',' && !quoted) ++count;
  }
  return count;
}

std::string run_ctwin_shell(const std::string& command) {
  std::string output;
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return output;
  char buffer[4096];
  std::size_t read = 0;
  while ((read = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) output.append(buffer, read);
  ::pclose(pipe);
  return output;
}

class NewUserCli : public ctwin::cli_testing::TempDirTest {};

TEST_F(NewUserCli, BundledNamesWorkWhereFilesAre) {
  // A scenario by name, and a scenario naming its model and cluster by bundled name.
  const auto by_name = run_ctwin("run default --network analytical --format json");
  ASSERT_EQ(by_name.status, 0) << by_name.output;
  const auto by_path = run_ctwin("run " + shell_quote(ctwin::kDefaultScenario) + " --network analytical --format json");
  ASSERT_EQ(by_path.status, 0) << by_path.output;
  EXPECT_EQ(nlohmann::json::parse(by_name.output).at("step_time_s"), nlohmann::json::parse(by_path.output).at("step_time_s"));

  const std::string named = write("named.json", R"({"model": "llama3-8b", "cluster": "dgx-h100-superpod", "gpus": 64,
    "training": {"seq_len": 8192, "global_batch": 128, "micro_batch": 1},
    "parallel": {"tp": 2, "pp": 2, "sequence_parallel": true, "distributed_optimizer": true, "recompute": "selective"},
    "overlap": {"dp_grad_reduce": true, "dp_param_gather": true, "tp_comm": false, "pp_p2p": true},
    "network": "analytical"})");
  const auto run = run_ctwin("run " + shell_quote(named) + " --format json");
  ASSERT_EQ(run.status, 0) << run.output;
  const auto report = nlohmann::json::parse(run.output);
  EXPECT_EQ(report.at("step_time_s"), nlohmann::json::parse(by_path.output).at("step_time_s"));
  EXPECT_EQ(report.at("inputs").at("model"), "llama3-8b");

  const auto fabric = run_ctwin("fabric --cluster dgx-h100-superpod --gpus 64 --format json");
  ASSERT_EQ(fabric.status, 0) << fabric.output;
  EXPECT_EQ(nlohmann::json::parse(fabric.output).at("gpus"), 64);
  // A bare name that names nothing lists what is bundled.
  EXPECT_TRUE(one_line_error(run_ctwin("fabric --cluster dgx-h100-superpot --gpus 64"),
                             {"dgx-h100-superpot", "bundled topology", "dgx-h100-superpod"}));
  const std::string typo = write("typo.json", R"({"model": "llama3-8bb", "cluster": "dgx-h100-superpod", "gpus": 8,
    "training": {"seq_len": 2048, "global_batch": 8}, "parallel": {"tp": 8}})");
  EXPECT_TRUE(one_line_error(run_ctwin("run " + shell_quote(typo)), {"/model", "llama3-8bb", "llama3-70b"}));
}

TEST_F(NewUserCli, DashReadsStandardInput) {
  const auto piped = run_ctwin("run - --network analytical --format json < " + shell_quote(ctwin::kDefaultScenario));
  ASSERT_EQ(piped.status, 0) << piped.output;
  const auto direct = run_ctwin("run " + shell_quote(ctwin::kDefaultScenario) + " --network analytical --format json");
  EXPECT_EQ(nlohmann::json::parse(piped.output).at("step_time_s"), nlohmann::json::parse(direct.output).at("step_time_s"));
  EXPECT_TRUE(one_line_error(run_ctwin("run - < /dev/null"), {"<stdin>"}));
}

TEST_F(NewUserCli, RunJsonSaysWhatProducedIt) {
  const auto run = run_ctwin("run default --network analytical --set parallel.tp=4 --set gpu=h200 --format json");
  ASSERT_EQ(run.status, 0) << run.output;
  const auto inputs = nlohmann::json::parse(run.output).at("inputs");
  EXPECT_EQ(inputs.at("model"), "models/llm/llama3-8b.json");
  EXPECT_EQ(inputs.at("cluster"), "topologies/dgx-h100-superpod.json");
  EXPECT_EQ(inputs.at("gpu"), "h200");
  EXPECT_EQ(inputs.at("set"), (nlohmann::json{"parallel.tp=4", "gpu=h200", "network=analytical"}));
}

TEST_F(NewUserCli, RunAndTrafficPrintOneCsvTableWithAHeader) {
  const auto run = run_ctwin("run default --network analytical --format csv");
  ASSERT_EQ(run.status, 0) << run.output;
  const auto lines = lines_of(run.output);
  ASSERT_EQ(lines.size(), 2U) << run.output;
  EXPECT_EQ(fields(lines[0]), fields(lines[1]));
  EXPECT_NE(lines[0].find("breakdown.exposed_comm_s.tp"), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find("step_time_s"), std::string::npos);

  const auto traffic = run_ctwin("traffic --cluster dgx-h100-superpod --gpus 16 --pattern alltoall --size 1MiB --format csv");
  ASSERT_EQ(traffic.status, 0) << traffic.output;
  const auto rows = lines_of(traffic.output);
  ASSERT_EQ(rows.size(), 2U) << traffic.output;
  EXPECT_EQ(fields(rows[0]), fields(rows[1]));
  EXPECT_EQ(rows[0].find("wall_s"), std::string::npos) << "wall time stays out unless asked for";
}

TEST_F(NewUserCli, FabricCsvIsOneTablePickedByName) {
  const auto summary = run_ctwin("fabric --cluster dgx-h100-superpod --gpus 256 --format csv");
  ASSERT_EQ(summary.status, 0) << summary.output;
  EXPECT_EQ(lines_of(summary.output).size(), 2U) << summary.output;
  const auto hops = run_ctwin("fabric --cluster dgx-h100-superpod --gpus 256 --format csv --table hops");
  ASSERT_EQ(hops.status, 0) << hops.output;
  const auto rows = lines_of(hops.output);
  ASSERT_GE(rows.size(), 3U) << hops.output;
  for (const auto& row : rows) EXPECT_EQ(fields(row), fields(rows[0])) << row;
  EXPECT_TRUE(one_line_error(run_ctwin("fabric --cluster dgx-h100-superpod --gpus 256 --format csv --table nope"),
                             {"--table", "nope", "hops"}));
}

TEST_F(NewUserCli, ScaleAnswersAtEverySizeAndSaysWhichBatch) {
  // 96 GPUs of the default split are dp 24, which does not divide its 128 sequences.
  const auto nearest = run_ctwin("scale default --gpus 64,96 --network analytical --format json");
  ASSERT_EQ(nearest.status, 0) << nearest.output;
  const auto study = nlohmann::json::parse(nearest.output);
  EXPECT_EQ(study.at("batch"), "nearest");
  EXPECT_FALSE(study.at("points")[1].contains("invalid"));
  EXPECT_EQ(study.at("points")[1].at("global_batch"), 120);
  EXPECT_TRUE(study.at("points")[1].contains("batch_note"));
  const auto fixed = run_ctwin("scale default --gpus 64,96 --network analytical --batch fixed --format json");
  ASSERT_EQ(fixed.status, 0) << fixed.output;
  EXPECT_TRUE(nlohmann::json::parse(fixed.output).at("points")[1].contains("invalid"));
  EXPECT_TRUE(one_line_error(run_ctwin("scale default --gpus 64 --batch weak"), {"--batch", "weak"}));
  EXPECT_TRUE(one_line_error(run_ctwin("scale default --gpus 64 --weak --batch fixed"), {"--weak"}));
}

TEST_F(NewUserCli, ProgressOnATerminalOnly) {
  // Under script(1) stderr is a terminal: the line shows (from the start, by the environment
  // variable, since the small default scenario finishes well within the default second); in a
  // pipe (stderr in the same pipe here) the output is the JSON alone.
  const std::string command =
      "CTWIN_PROGRESS_AFTER_MS=0 " + shell_quote(CTWIN_BINARY) + " run default --format json >/dev/null";
  const auto tty = run_ctwin_shell("script -qec " + shell_quote(command) + " /dev/null");
  EXPECT_NE(tty.find("simulating one step of default"), std::string::npos) << tty;
  EXPECT_NE(tty.find("events/s"), std::string::npos) << tty;
  const std::string piped = run_ctwin_shell(command.substr(0, command.size() - std::string(" >/dev/null").size()));
  ASSERT_FALSE(piped.empty());
  EXPECT_EQ(piped.front(), '{');
  EXPECT_TRUE(nlohmann::json::parse(piped).is_object());
}

}  // namespace
