// Oracles for background traffic in `ctwin cluster` (docs/cluster.md, "Background traffic"): a
// stream on the only uplink a ring all-reduce crosses leaves the ring the rest of it, or takes
// one flow's max-min share where it asks for more (closed forms); a stream on a link no job uses
// changes nothing; bad input names the file and the field.

#include <gtest/gtest.h>

#include <string>

#include "ctwin/api/evaluate.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/fabric/degradation.hpp"
#include "ctwin/studies/cluster_jobs.hpp"
#include "ctwin/studies/cluster_json.hpp"
#include "bundled_fabric.hpp"
#include "cluster_study_support.hpp"
#include "source_root.hpp"

namespace ctwin::api {
namespace {

// Llama 3 8B cut to 2 layers, TP 8, the DP all-reduce exposed (docs/cluster.md's oracle job).
std::vector<std::string> background_job_changes(int gpus) {
  return {"gpus=" + std::to_string(gpus), "model.layers=2", "parallel.tp=8", "parallel.pp=1",
          "training.global_batch=" + std::to_string(gpus / 4), "overlap.dp_grad_reduce=false",
          "overlap.dp_param_gather=false"};
}

std::vector<std::string> background_build_changes(int leaf_oversubscription) {
  return {"fabric.kind=\"top_of_rack\"", "fabric.oversubscription.leaf=" + std::to_string(leaf_oversubscription)};
}

// 16 DGX H100 nodes on a top-of-rack fat tree, one job on `nodes`, the given streams.
nlohmann::json background_document(int leaf_oversubscription, const std::vector<std::int64_t>& nodes,
                                   nlohmann::json streams) {
  nlohmann::json job{{"name", "a"},
                     {"scenario", kDefaultScenario},
                     {"set", background_job_changes(static_cast<int>(nodes.size()) * 8)},
                     {"nodes", nodes}};
  nlohmann::json document{{"cluster", "dgx-h100-superpod"},
                          {"nodes", 16},
                          {"set", background_build_changes(leaf_oversubscription)},
                          {"jobs", {job}}};
  if (!streams.is_null()) document["background"] = std::move(streams);
  return document;
}

// The capacity of a cable's upward direction on the oracle build, as the flow model sees it.
double background_link_gbps(int leaf_oversubscription, const std::string& cable) {
  const auto built = testing::bundled_fabric("dgx-h100-superpod", 128, background_build_changes(leaf_oversubscription));
  std::string problem;
  const auto link = fabric::find_named_cable(built, cable, problem);
  EXPECT_TRUE(link.has_value()) << problem;
  return built.link(*link).achieved().gigabits_per_second();
}

nlohmann::json uplink_stream(const std::string& rate) {
  return nlohmann::json::array({{{"link", "leaf0.up0"}, {"rate", rate}}});
}

// At 56:1 a leaf of 7 nodes has one uplink of capacity C; a 2-node job on nodes 0 and 7 (leaves
// 0 and 1) puts its whole DP all-reduce through it, both ways, as one ring flow per rail: 8
// flows each way. A stream of rate r on that uplink, both ways:
//   - below one flow's max-min share (r < C/9) it runs at r and leaves the ring C - r: the
//     exposed DP time grows from dp to dp * C / (C - r) (closed form, within 1 %);
//   - above it, max-min gives the stream and each ring flow C/9 while the ring runs: the DP time
//     grows to dp * 9/8 whatever r is, and the stream reports that it got less than it asked.
// A stream from a node of leaf 0 to one of leaf 1 and back loads the same ring flows the same
// way, so it costs the job the same step (within 0.1 %).
TEST(ClusterBackground, StreamOnTheOnlyUplinkLeavesTheRingTheRest) {
  const double c = background_link_gbps(56, "leaf0.up0");
  EvalContext context;
  std::vector<std::string> changes = background_job_changes(16);
  for (const auto& change : background_build_changes(56)) changes.push_back("cluster." + change);
  changes.emplace_back("network=\"flow\"");
  changes.emplace_back(R"(placement={"nodes": [0, 7], "build_nodes": 16})");
  const auto alone = evaluate(Scenario::load(kDefaultScenario).with_assignments(changes), context);
  const double dp = alone.step.report.breakdown.exposed_comm_s.dp;
  ASSERT_GT(dp, 0.2 * alone.step.report.step_time_s);
  const auto dp_beside = [&](const ClusterJobResult& job) {
    return dp + job.alone_with_background->step_time_s - job.alone.step_time_s;
  };

  const double r = 40;
  ASSERT_LT(r, c / 9);
  const ClusterStudy below = run_cluster_document(background_document(56, {0, 7}, uplink_stream("40Gbps")));
  ASSERT_EQ(below.background.size(), 2u);  // both directions
  const auto& job = below.jobs.front();
  ASSERT_TRUE(job.alone_with_background.has_value());
  EXPECT_NEAR(job.alone.step_time_s, alone.step.report.step_time_s, 1e-12);
  EXPECT_NEAR(dp_beside(job), dp * c / (c - r), 0.01 * dp * c / (c - r));
  // One job: its shared step is its step beside the background alone.
  EXPECT_EQ(job.shared_mean.step_time_s, job.alone_with_background->step_time_s);
  for (const auto& stream : below.background) {
    EXPECT_NEAR(stream.achieved_Gbps, r, 0.01 * r) << stream.label;
    EXPECT_FALSE(stream.less_than_asked) << stream.label;
  }
  EXPECT_EQ(below.background[0].label, "leaf0.up0 (leaf -> spine)");
  EXPECT_EQ(below.background[1].label, "leaf0.up0 (spine -> leaf)");

  const ClusterStudy above = run_cluster_document(background_document(56, {0, 7}, uplink_stream("300Gbps")));
  EXPECT_NEAR(dp_beside(above.jobs.front()), dp * 9 / 8, 0.01 * dp * 9 / 8);
  for (const auto& stream : above.background) {
    EXPECT_LT(stream.achieved_Gbps, 300) << stream.label;
    EXPECT_GT(stream.achieved_Gbps, c / 9) << stream.label;  // its whole rate while the ring computes
    EXPECT_TRUE(stream.less_than_asked) << stream.label;
  }

  nlohmann::json nodes = nlohmann::json::array({{{"nodes", {3}}, {"to", 10}, {"rate", "40Gbps"}}});
  const ClusterStudy through_nodes = run_cluster_document(background_document(56, {0, 7}, nodes));
  ASSERT_EQ(through_nodes.background.size(), 2u);
  EXPECT_EQ(through_nodes.background[0].label, "n3 -> n10");
  EXPECT_EQ(through_nodes.background[1].label, "n10 -> n3");
  EXPECT_NEAR(through_nodes.jobs.front().alone_with_background->step_time_s, job.alone_with_background->step_time_s,
              1e-3 * job.alone_with_background->step_time_s);
}

// A stream on a link no job crosses (the uplink of a leaf the job does not touch) leaves every
// job row as it was, to the byte, and gets all it asked for.
TEST(ClusterBackground, StreamOnALinkNoJobUsesChangesNothing) {
  nlohmann::json streams = nlohmann::json::array({{{"link", "leaf2.up1"}, {"rate", "150Gbps"}, {"direction", "up"}}});
  const auto quiet = cluster_json(run_cluster_document(background_document(4, {0, 1, 6, 7}, nullptr)));
  const ClusterStudy study = run_cluster_document(background_document(4, {0, 1, 6, 7}, streams));
  ASSERT_EQ(study.background.size(), 1u);
  EXPECT_NEAR(study.background[0].achieved_Gbps, 150, 1.5);
  auto busy = cluster_json(study);
  ASSERT_EQ(busy["jobs"][0]["background_slowdown"], 1.0);
  busy["jobs"][0].erase("alone_with_background");
  busy["jobs"][0].erase("background_slowdown");
  EXPECT_EQ(busy["jobs"].dump(), quiet["jobs"].dump());
  EXPECT_EQ(quiet["jobs"][0]["leaves"], 2);  // the job crosses the spines, beside the stream's leaf
}

// A schedule of one step is the constant stream, to the byte. On the 56:1 uplink of the closed
// form above, a 300 Gb/s burst that ends halfway through the job's compute (before its DP ring
// starts) costs the step nothing (within 0.1 %) and gets all its rate; the same burst from the
// ring's start on costs it dp / 8, as the constant stream does (within 1 %).
TEST(ClusterBackground, ABurstCostsTheJobOnlyWhileItsRingRuns) {
  nlohmann::json one_step = nlohmann::json::array({{{"link", "leaf0.up0"}, {"schedule", {{{"from_s", 0}, {"rate", "40Gbps"}}}}}});
  EXPECT_EQ(cluster_json(run_cluster_document(background_document(56, {0, 7}, one_step))).dump(),
            cluster_json(run_cluster_document(background_document(56, {0, 7}, uplink_stream("40Gbps")))).dump());

  const ClusterStudy quiet = run_cluster_document(background_document(56, {0, 7}, nullptr));
  const double step = quiet.jobs.front().alone.step_time_s;
  EvalContext context;
  std::vector<std::string> changes = background_job_changes(16);
  for (const auto& change : background_build_changes(56)) changes.push_back("cluster." + change);
  changes.emplace_back("network=\"flow\"");
  changes.emplace_back(R"(placement={"nodes": [0, 7], "build_nodes": 16})");
  const double dp = evaluate(Scenario::load(kDefaultScenario).with_assignments(changes), context).step.report.breakdown.exposed_comm_s.dp;
  const double ring_starts = step - dp;
  const auto burst = [](double on, double off) {
    nlohmann::json schedule = nlohmann::json::array();
    if (on > 0) schedule.push_back({{"from_s", 0}, {"rate", "0Gbps"}});
    schedule.push_back({{"from_s", on}, {"rate", "300Gbps"}});
    if (off > 0) schedule.push_back({{"from_s", off}, {"rate", "0Gbps"}});
    return nlohmann::json::array({{{"link", "leaf0.up0"}, {"schedule", schedule}}});
  };
  const ClusterStudy early = run_cluster_document(background_document(56, {0, 7}, burst(0, ring_starts / 2)));
  EXPECT_NEAR(early.jobs.front().alone_with_background->step_time_s, step, 1e-3 * step);
  for (const auto& stream : early.background) {
    EXPECT_NEAR(stream.rate_Gbps, 300, 3) << stream.label;  // its mean ask up to its last chunk
    EXPECT_NEAR(stream.achieved_Gbps, 300, 3) << stream.label;
    EXPECT_FALSE(stream.less_than_asked) << stream.label;
  }
  const ClusterStudy on_ring = run_cluster_document(background_document(56, {0, 7}, burst(ring_starts, 0)));
  const double grown = on_ring.jobs.front().alone_with_background->step_time_s - step;
  EXPECT_NEAR(grown, dp / 8, 0.01 * dp * 9 / 8);
}

TEST(ClusterBackground, BadInputNamesTheFileAndTheField) {
  const auto error_of = [](nlohmann::json stream) {
    return cluster_document_error(background_document(4, {0, 1, 2, 3}, nlohmann::json::array({std::move(stream)})));
  };
  const auto expect_error = [&](const nlohmann::json& stream, const std::string& part) {
    const std::string message = error_of(stream);
    EXPECT_NE(message.find(part), std::string::npos) << stream.dump() << " -> " << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  };
  expect_error({{"link", "leaf9.up0"}, {"rate", "10Gbps"}}, "jobs.json: /background/0/link");
  expect_error({{"link", "spine.x"}, {"rate", "10Gbps"}}, "jobs.json: /background/0/link");
  expect_error({{"link", "leaf0.up0"}, {"rate", "10"}}, "jobs.json: /background/0/rate: missing unit");
  expect_error({{"link", "leaf0.up0"}, {"rate", "-5Gbps"}}, "jobs.json: /background/0/rate");
  expect_error({{"link", "leaf0.up0"}, {"rate", "0Gbps"}}, "jobs.json: /background/0/rate");
  expect_error({{"link", "leaf0.up0"}, {"rate", "2Tbps"}}, "jobs.json: /background/0/rate: 2 Tbps is above");
  expect_error({{"link", "leaf0.up0"}, {"rate", "10Gbps"}, {"colour", "red"}}, "jobs.json: /background/0/colour");
  expect_error({{"link", "leaf0.up0"}, {"rate", "10Gbps"}, {"direction", "sideways"}}, "jobs.json: /background/0/direction");
  expect_error({{"link", "leaf0.up0"}, {"nodes", {1}}, {"to", 2}, {"rate", "10Gbps"}}, "jobs.json: /background/0");
  expect_error({{"nodes", {1, 16}}, {"to", 2}, {"rate", "10Gbps"}}, "jobs.json: /background/0/nodes/1");
  expect_error({{"nodes", {1, 2}}, {"to", 2}, {"rate", "10Gbps"}}, "jobs.json: /background/0/nodes/1");
  expect_error({{"nodes", {1}}, {"rate", "10Gbps"}}, "jobs.json: /background/0/to");
  const auto schedule = [](nlohmann::json steps) { return nlohmann::json{{"link", "leaf0.up0"}, {"schedule", std::move(steps)}}; };
  expect_error({{"link", "leaf0.up0"}, {"rate", "10Gbps"}, {"schedule", {{{"from_s", 0}, {"rate", "10Gbps"}}}}},
               "jobs.json: /background/0/schedule: a stream takes a \"rate\" or a \"schedule\"");
  expect_error(schedule({{{"from_s", 0.1}, {"rate", "10Gbps"}}}), "jobs.json: /background/0/schedule/0/from_s");
  expect_error(schedule({{{"from_s", 0}, {"rate", "10Gbps"}}, {{"from_s", 0}, {"rate", "20Gbps"}}}),
               "jobs.json: /background/0/schedule/1/from_s");
  expect_error(schedule({{{"from_s", 0}, {"rate", "0Gbps"}}}), "jobs.json: /background/0/schedule: every step is 0");
  expect_error(schedule({{{"from_s", 0}, {"rate", "10"}}}), "jobs.json: /background/0/schedule/0/rate: missing unit");
  expect_error(schedule({{{"from_s", 0}, {"rate", "2Tbps"}}}), "jobs.json: /background/0/schedule: 2 Tbps is above");
  expect_error(schedule(nlohmann::json::array()), "jobs.json: /background/0/schedule");
  nlohmann::json not_a_list = background_document(4, {0, 1, 2, 3}, nullptr);
  not_a_list["background"] = {{"link", "leaf0.up0"}};
  EXPECT_NE(cluster_document_error(not_a_list).find("jobs.json: /background"), std::string::npos);
}

}  // namespace
}  // namespace ctwin::api
