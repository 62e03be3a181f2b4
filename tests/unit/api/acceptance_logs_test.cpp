// ctwin accept on the public nccl-tests logs of validation/nccl: every log flagged as
// underperforming fails, and the healthy ("check") logs pass, with a plan that compares busbw at
// 64 MiB and above within 50 % of the uncalibrated twin. 50 % is the twin's own error on healthy
// logs (the largest: B200 2-GPU alltoall at 0.46 of the prediction), not an acceptance
// threshold a buyer would sign: docs/accept.md shows the agreement at 25 % and 35 % too, and why
// a real plan tightens its tolerances after `ctwin calibrate --nccl` on a reference node.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "ctwin/acceptance/acceptance_check.hpp"
#include "ctwin/core/json_reader.hpp"

namespace ctwin::api {
namespace {

namespace fs = std::filesystem;

struct Verdict {
  int underperforming_failed = 0, underperforming = 0, check_passed = 0, check = 0;
  std::vector<std::string> disagreements;
};

Verdict run(const std::string& tolerance) {
  const fs::path root = CTWIN_SOURCE_DIR;
  const nlohmann::json setups = load_json_file(root / "validation/nccl/setups.json");
  const fs::path work = fs::temp_directory_path() / ("ctwin-accept-logs-" + std::to_string(::getpid()));
  Verdict v;
  EvalContext context;
  for (const auto& s : setups.at("logs")) {
    if (s.at("topology").is_null()) continue;
    const std::string algorithm = s.at("algorithm").is_null() ? "auto" : s.at("algorithm").get<std::string>();
    nlohmann::json test = {{"id", "t"}, {"kind", "collective"}, {"op", s.at("op")}, {"begin", "64MiB"}, {"end", "16GiB"},
                           {"factor", 2}, {"nodes", {"all"}}, {"metric", "busbw"}, {"tolerance", tolerance}};
    if (algorithm == "RING") test["algo"] = "ring";
    fs::remove_all(work);
    fs::create_directories(work / "m");
    std::ofstream(work / "plan.json") << nlohmann::json{{"name", "logs"}, {"tests", {test}}}.dump();
    const int ranks = s.at("nranks").get<int>();
    fs::copy_file(root / "validation/nccl" / s.at("log").get<std::string>(), work / "m" / ("t@" + std::to_string(ranks) + ".log"));
    Build build;
    build.cluster = (root / s.at("topology").get<std::string>()).string();
    build.gpus = ranks;
    const AcceptancePlan plan = load_acceptance_plan((work / "plan.json").string());
    const AcceptanceExpectation e = evaluate_acceptance(build, plan, context);
    const MeasuredSet measured = read_measured((work / "m").string(), plan, *build_fabric(build, context));
    const AcceptanceCheck c = check_acceptance(build, plan, e, measured, context);
    EXPECT_FALSE(c.points.empty()) << s.at("id");
    const bool flagged = s.at("role") == "underperforming";
    const bool failed = c.failed > 0;
    (flagged ? v.underperforming : v.check) += 1;
    if (flagged && failed) ++v.underperforming_failed;
    if (!flagged && !failed) ++v.check_passed;
    if (flagged != failed) v.disagreements.push_back(s.at("id").get<std::string>());
  }
  fs::remove_all(work);
  return v;
}

TEST(AcceptanceLogs, UnderperformingLogsFailAndHealthyOnesPass) {
  const Verdict v = run("50%");
  EXPECT_EQ(v.underperforming, 17);
  EXPECT_EQ(v.underperforming_failed, v.underperforming);
  EXPECT_EQ(v.check, 86);
  // Two healthy logs fall further below the uncalibrated twin than 50 %: B200 2-GPU alltoall.
  EXPECT_GE(v.check_passed, 84);
  for (const auto& id : v.disagreements) EXPECT_NE(id.find("aic-b200_sxm-alltoall"), std::string::npos) << id;
}

}  // namespace
}  // namespace ctwin::api
