// Shards of a sweep and their merge: the one-machine bytes back, and the refusals.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "cli/cli_runner.hpp"
#include "ctwin/studies/sweep.hpp"
#include "ctwin/core/error.hpp"
#include "plan_scenario.hpp"

namespace ctwin::api {
namespace {

std::vector<GridAxis> grid() {
  // Five points, one of them invalid (144 sequences over dp 32): shards of 3 are uneven and
  // carry an invalid point through the merge.
  std::vector<GridAxis> axes;
  for (const char* text : {"parallel.pp=1,2,4,8,1", "training.global_batch=144"}) axes.push_back(parse_grid_axis(text));
  return axes;
}

// What a file gives back: the shard written as text and read again.
nlohmann::json as_file(const SweepResult& shard) { return nlohmann::json::parse(sweep_json(shard).dump(2)); }

std::vector<nlohmann::json> shards_of(const Scenario& scenario, std::size_t count, EvalContext& context) {
  std::vector<nlohmann::json> out;
  for (std::size_t i = 0; i < count; ++i) {
    SweepOptions options;
    options.jobs = 2;
    options.shard_index = i;
    options.shard_count = count;
    out.push_back(as_file(evaluate_sweep(scenario, grid(), context, options)));
  }
  return out;
}

TEST(SweepShards, MergedShardsEqualTheOneMachineJsonByteForByte) {
  EvalContext context;
  const std::string whole = sweep_json(evaluate_sweep(analytical_default_scenario(), grid(), context, {1, {}})).dump(2);
  ASSERT_NE(whole.find("invalid"), std::string::npos) << whole;
  for (std::size_t count : {2u, 3u, 5u, 7u}) {
    auto shards = shards_of(analytical_default_scenario(), count, context);
    std::size_t points = 0;
    for (const auto& s : shards) points += s["points"].size();
    EXPECT_EQ(points, 5u);
    std::reverse(shards.begin(), shards.end());  // the order files are given in does not matter
    const std::vector<std::string> names(count, "shard.json");
    EXPECT_EQ(sweep_json(merge_sweeps(shards, names)).dump(2), whole) << count << " shards";
  }
}

TEST(SweepShards, MissingRepeatedOrForeignShardsAreRefused) {
  EvalContext context;
  const auto shards = shards_of(analytical_default_scenario(), 3, context);
  const std::vector<std::string> two{"a.json", "b.json"}, three{"a.json", "b.json", "c.json"};
  EXPECT_THROW((void)merge_sweeps({shards[0], shards[1]}, two), InputError);              // one missing
  EXPECT_THROW((void)merge_sweeps({shards[0], shards[1], shards[1]}, three), InputError);  // one twice
  // The same model and grid on another scenario (a --set), and on another grid.
  const auto other = shards_of(analytical_default_scenario().with("overlap.dp_grad_reduce", false), 3, context);
  try {
    (void)merge_sweeps({shards[0], shards[1], other[2]}, three);
    FAIL() << "shards of two sweeps were merged";
  } catch (const InputError& e) {
    EXPECT_EQ(e.source(), "c.json");
  }
  auto regridded = shards[2];
  regridded["axes"][0]["values"][4] = "2";
  EXPECT_THROW((void)merge_sweeps({shards[0], shards[1], regridded}, three), InputError);
  auto alien = shards[2];
  alien["points"][0]["index"] = 0;  // shard 3's points have index 2 mod 3
  EXPECT_THROW((void)merge_sweeps({shards[0], shards[1], alien}, three), InputError);
  EXPECT_THROW((void)merge_sweeps({nlohmann::json::object()}, {"empty.json"}), InputError);
}

// Edited shards (issue 36): a count of 10^18 points asked for that many flags (std::bad_alloc),
// and figures no run reports (a step of -5 s, an MFU of 750 %) were printed as merged. Every
// figure is checked, and the grid is its axes' product.
TEST(SweepShards, EditedFiguresAndCountsAreRefusedNamingTheField) {
  EvalContext context;
  const auto shards = shards_of(Scenario::load(std::string(CTWIN_SOURCE_DIR) + "/scenarios/default.json"), 2, context);
  const std::vector<std::string> two{"a.json", "b.json"};
  ASSERT_NO_THROW((void)merge_sweeps(shards, two));
  const auto refused = [&](const std::function<void(nlohmann::json&)>& edit, const std::string& pointer) {
    auto edited = shards[1];
    edit(edited);
    try {
      (void)merge_sweeps({shards[0], edited}, two);
      ADD_FAILURE() << pointer << ": the edited shard was merged";
    } catch (const InputError& e) {
      EXPECT_EQ(e.source(), "b.json");
      EXPECT_NE(std::string(e.what()).find(pointer), std::string::npos) << e.what();
    }
  };
  // Shard 2 holds points 1 and 3 (0-based), both valid.
  // A count both files agree on, but not their axes' product: refused at the first file.
  auto huge = shards;
  for (auto& shard : huge) shard["grid_points"] = 1'000'000'000'000'000'000ULL;
  try {
    (void)merge_sweeps(huge, two);
    ADD_FAILURE() << "a grid of 10^18 points was merged";
  } catch (const InputError& e) {
    EXPECT_EQ(e.source(), "a.json");
    EXPECT_EQ(e.pointer(), "/grid_points");
  }
  refused([](nlohmann::json& j) { j["points"][0]["step_time_s"] = -5.0; }, "/points/1/step_time_s");
  refused([](nlohmann::json& j) { j["points"][0]["mfu"] = 7.5; }, "/points/1/mfu");
  refused([](nlohmann::json& j) { j["points"][1]["tokens_per_s"] = 0.0; }, "/points/3/tokens_per_s");
  refused([](nlohmann::json& j) { j["points"][0]["parallel.pp"] = "4"; }, "/points/1/parallel.pp");
}

class SweepShardCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("ctwin-sweep-shards-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string file(const std::string& name) const { return (dir_ / name).string(); }
  std::filesystem::path dir_;
};

TEST_F(SweepShardCli, MergeOfShardFilesPrintsTheOneMachineBytes) {
  const std::string sweep = "sweep scenarios/default.json --network analytical --grid parallel.tp=1,2,4 "
                            "--grid training.micro_batch=1,2 --format json";
  const auto whole = cli_testing::run_ctwin(sweep);
  ASSERT_EQ(whole.status, 0) << whole.output;
  for (int i = 1; i <= 4; ++i) {
    const auto shard = cli_testing::run_ctwin(sweep + " --shard " + std::to_string(i) + "/4 > " +
                                              cli_testing::shell_quote(file("s" + std::to_string(i) + ".json")));
    ASSERT_EQ(shard.status, 0) << shard.output;
  }
  const auto merged = cli_testing::run_ctwin("sweep --format json --merge " + file("s3.json") + " " + file("s1.json") +
                                             " " + file("s4.json") + " " + file("s2.json"));
  ASSERT_EQ(merged.status, 0) << merged.output;
  EXPECT_EQ(merged.output, whole.output);
  const auto csv = cli_testing::run_ctwin("sweep --format csv --merge " + file("s1.json") + " " + file("s2.json") +
                                          " " + file("s3.json") + " " + file("s4.json"));
  EXPECT_EQ(csv.output, cli_testing::run_ctwin(sweep.substr(0, sweep.size() - 4) + "csv").output);

  // Another sweep's shard (another --set): one line naming the file, exit 2.
  ASSERT_EQ(cli_testing::run_ctwin(sweep + " --set training.global_batch=256 --shard 4/4 > " +
                                   cli_testing::shell_quote(file("other.json")))
                .status,
            0);
  EXPECT_TRUE(cli_testing::one_line_error(
      cli_testing::run_ctwin("sweep --merge " + file("s1.json") + " " + file("s2.json") + " " + file("s3.json") + " " +
                             file("other.json")),
      {"other.json", "another sweep"}));
  EXPECT_TRUE(cli_testing::one_line_error(
      cli_testing::run_ctwin("sweep --merge " + file("s1.json") + " " + file("s2.json") + " " + file("s3.json")),
      {"--merge", "3 of 4"}));
}

TEST(SweepShardCliInput, BadShardIsOneLineAndExitTwo) {
  for (const char* bad : {"3/2", "0/2", "2", "1/0"}) {
    EXPECT_TRUE(cli_testing::one_line_error(
        cli_testing::run_ctwin(std::string("sweep scenarios/default.json --grid parallel.tp=1,2 --shard ") + bad),
        {"--shard", bad}));
  }
  EXPECT_TRUE(cli_testing::one_line_error(cli_testing::run_ctwin("sweep --merge /nonexistent.json"), {"nonexistent"}));
  EXPECT_TRUE(cli_testing::one_line_error(cli_testing::run_ctwin("sweep scenarios/default.json"), {"--grid"}));
}

}  // namespace
}  // namespace ctwin::api
