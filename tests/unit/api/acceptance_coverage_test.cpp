// Coverage before verdict (issue 35): `accept --measured` on a folder holding one 2-node
// all_reduce said "Accepted: 21 measured points, 0 failed" though nothing else of the plan was
// measured. A build is accepted only when every test of the plan is measured and every point
// passes; otherwise the report says which tests are missing, partial or outside the plan.

#include "ctwin/acceptance/acceptance_check.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "ctwin/core/error.hpp"
#include "source_root.hpp"

namespace ctwin::api {
namespace {

namespace fs = std::filesystem;

// Two nodes of H100: a p2p class in a node and one across it, a GEMM and an all_reduce on one
// and two nodes. Small enough to evaluate in well under a second.
const char* kCoveragePlan = R"({"name": "coverage", "tests": [
  {"id": "nvlink", "kind": "p2p", "path": "same_node", "size": "1GiB", "metric": "bandwidth", "tolerance": "10%"},
  {"id": "rail", "kind": "p2p", "path": "same_rail", "size": "1GiB", "metric": "bandwidth", "tolerance": "10%"},
  {"id": "gemm", "kind": "gemm", "m": 8192, "n": 8192, "k": 8192, "metric": "tflops", "tolerance": "10%"},
  {"id": "ar", "kind": "collective", "op": "all_reduce", "begin": "1MiB", "end": "64MiB", "factor": 8, "nodes": [1, 2],
   "metric": "busbw", "tolerance": "15%"}]})";

struct CoverageFixture {
  fs::path dir;
  Build build;
  AcceptancePlan plan;
  EvalContext context;
  AcceptanceExpectation expectation;

  explicit CoverageFixture(const std::string& name) {
    dir = fs::temp_directory_path() / ("ctwin-coverage-" + name + "-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir / "measured");
    std::ofstream(dir / "plan.json") << kCoveragePlan;
    build.cluster = kRoot + "/topologies/dgx-h100-superpod.json";
    build.gpus = 16;
    plan = load_acceptance_plan((dir / "plan.json").string());
    expectation = evaluate_acceptance(build, plan, context);
  }
  ~CoverageFixture() { fs::remove_all(dir); }

  // The check of a measured CSV (header added).
  AcceptanceCheck check_csv(const std::string& rows) {
    std::ofstream(dir / "measured" / "m.csv") << "test,instance,value\n" << rows;
    const auto fabric = build_fabric(build, context);
    return check_acceptance(build, plan, expectation, read_measured((dir / "measured").string(), plan, *fabric), context);
  }
};

const TestCoverage& coverage_of(const AcceptanceCheck& check, const std::string& test) {
  for (const auto& c : check.coverage) {
    if (c.test == test) return c;
  }
  throw std::runtime_error("no coverage row for " + test);
}

TEST(AcceptanceCoverage, OneTwoNodeCollectiveIsIncompleteNotAccepted) {
  CoverageFixture f("one");
  const double busbw = [&] {
    for (const auto& r : f.expectation.rows) {
      if (r.test == "ar" && r.instance == "nodes=2 size=8388608") return r.expected;
    }
    return 0.0;
  }();
  ASSERT_GT(busbw, 0);
  const AcceptanceCheck check = f.check_csv("ar,nodes=2 size=8388608," + std::to_string(busbw) + "\n");
  EXPECT_EQ(check.failed, 0);
  EXPECT_EQ(check.verdict, Verdict::kIncomplete);
  EXPECT_EQ(check.tests_measured, 0);
  ASSERT_EQ(check.coverage.size(), 4u);
  EXPECT_EQ(coverage_of(check, "nvlink").status, CoverageStatus::kMissing);
  EXPECT_EQ(coverage_of(check, "gemm").status, CoverageStatus::kMissing);
  EXPECT_EQ(coverage_of(check, "gemm").units, 16);
  const TestCoverage& ar = coverage_of(check, "ar");
  EXPECT_EQ(ar.status, CoverageStatus::kPartial);
  EXPECT_EQ(ar.units, 2);
  EXPECT_EQ(ar.covered, 1);
  EXPECT_EQ(ar.missing, std::vector<std::string>{"nodes=1"});
  const std::string verdict = verdict_text(check);
  EXPECT_EQ(verdict.rfind("Incomplete: 0 of 4 tests measured (1 points, none failed); not measured: nvlink (missing)", 0), 0u)
      << verdict;
  EXPECT_NE(verdict.find("ar (partial: 1 of 2 node counts)"), std::string::npos) << verdict;
  const std::string md = acceptance_markdown(f.expectation, &check);
  EXPECT_NE(md.find("**Incomplete**: 0 of 4 tests measured"), std::string::npos);
  EXPECT_EQ(md.find("Accepted"), std::string::npos);
  const nlohmann::json json = acceptance_json(check);
  EXPECT_EQ(json["verdict"], "incomplete");
  EXPECT_EQ(json["tests_in_plan"], 4);
  EXPECT_EQ(json["coverage"][2]["missing_count"], 16);
  EXPECT_EQ(json["coverage"][2]["missing"].size(), kMissingListed);
}

TEST(AcceptanceCoverage, EveryTestMeasuredAndPassingIsAccepted) {
  CoverageFixture f("all");
  const AcceptanceCheck check =
      check_acceptance(f.build, f.plan, f.expectation, synthesize_measured(f.build, f.plan, f.expectation, {}, 0.0, 1, f.context),
                       f.context);
  EXPECT_EQ(check.verdict, Verdict::kAccepted);
  EXPECT_EQ(check.tests_measured, 4);
  for (const auto& c : check.coverage) EXPECT_EQ(c.status, CoverageStatus::kMeasured) << c.test;
  EXPECT_EQ(verdict_text(check).rfind("Accepted: all 4 tests measured", 0), 0u) << verdict_text(check);
}

TEST(AcceptanceCoverage, AFailureIsNotAcceptedWhateverIsMissing) {
  CoverageFixture f("fail");
  const AcceptanceCheck check = f.check_csv("gemm,gpu=3,100\ngemm,gpu=4,100\n");
  EXPECT_EQ(check.verdict, Verdict::kNotAccepted);
  const TestCoverage& gemm = coverage_of(check, "gemm");
  EXPECT_EQ(gemm.status, CoverageStatus::kPartial);
  EXPECT_EQ(gemm.covered, 2);
  EXPECT_EQ(gemm.missing.front(), "gpu=0");
  EXPECT_EQ(verdict_text(check), "Not accepted: 2 of 2 measured points failed; 0 of 4 tests measured");
}

TEST(AcceptanceCoverage, SizesBeyondTheSweepAreOutsideThePlanNotMeasured) {
  CoverageFixture f("outside");
  const AcceptanceCheck check = f.check_csv("ar,nodes=2 size=1073741824,100\n");
  EXPECT_EQ(check.outside_plan, 1);
  EXPECT_EQ(coverage_of(check, "ar").status, CoverageStatus::kOutsidePlan);
  EXPECT_EQ(check.verdict, Verdict::kIncomplete);
}

TEST(AcceptanceCoverage, ShowSelectsWhatTheMarkdownLists) {
  CoverageFixture f("show");
  const AcceptanceCheck check =
      check_acceptance(f.build, f.plan, f.expectation, synthesize_measured(f.build, f.plan, f.expectation, {}, 0.0, 1, f.context),
                       f.context);
  const std::string summary = acceptance_markdown(f.expectation, &check, {}, ReportDetail::kSummary);
  const std::string failures = acceptance_markdown(f.expectation, &check, {}, ReportDetail::kFailures);
  const std::string all = acceptance_markdown(f.expectation, &check, {}, ReportDetail::kAll);
  EXPECT_EQ(summary.find("## Expected values"), std::string::npos);
  EXPECT_NE(summary.find("## Sign-off"), std::string::npos);
  EXPECT_NE(failures.find("None of the " + std::to_string(check.points.size()) + " measured points failed"), std::string::npos);
  EXPECT_EQ(failures.find("| pass |"), std::string::npos);
  EXPECT_NE(all.find("### Measured points"), std::string::npos);
  EXPECT_NE(all.find("| gemm | gpu=15 |"), std::string::npos);
  EXPECT_THROW((void)parse_report_detail("some", "--show"), InputError);
}

}  // namespace
}  // namespace ctwin::api
