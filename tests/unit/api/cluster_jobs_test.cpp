#include "ctwin/studies/cluster_jobs.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "ctwin/api/evaluate.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/core/json_reader.hpp"
#include "ctwin/studies/cluster_json.hpp"
#include "ctwin/studies/cluster_policies.hpp"
#include "cluster_study_support.hpp"
#include "source_root.hpp"

namespace ctwin::api {
namespace {

// Llama 3 8B cut to 2 layers on `gpus` H100 (whole DGX nodes), TP 8, its gradients reduced after
// the last backward so that the DP all-reduce runs exposed (docs/cluster.md's placement job).
nlohmann::json cluster_test_changes(int gpus) {
  return {"gpus=" + std::to_string(gpus), "model.layers=2", "parallel.tp=8", "parallel.pp=1",
          "training.global_batch=" + std::to_string(gpus / 4), "overlap.dp_grad_reduce=false",
          "overlap.dp_param_gather=false"};
}

// 16 DGX H100 nodes on a top-of-rack fat tree (leaves of 6 nodes) with `leaf_oversubscription`.
nlohmann::json cluster_test_build(double leaf_oversubscription) {
  return {{"cluster", "dgx-h100-superpod"},
          {"nodes", 16},
          {"set", {"fabric.kind=\"top_of_rack\"", "fabric.oversubscription.leaf=" + std::to_string(leaf_oversubscription)}},
          {"jobs", nlohmann::json::array()}};
}

nlohmann::json cluster_test_job(const std::string& name, const std::vector<std::int64_t>& nodes) {
  return {{"name", name},
          {"scenario", kDefaultScenario},
          {"set", cluster_test_changes(static_cast<int>(nodes.size()) * 8)},
          {"nodes", nodes}};
}

// Oracle: one job through `cluster` is `ctwin run --network flow` of its scenario on the same
// nodes of the same build, to the bit, alone and in its (only) shared step.
TEST(ClusterJobs, OneJobIsTheRunOfItsScenarioOnItsNodes) {
  nlohmann::json document = cluster_test_build(4);
  document["jobs"].push_back(cluster_test_job("a", {0, 4, 7, 8}));
  const ClusterStudy study = run_cluster_document(document);
  ASSERT_EQ(study.jobs.size(), 1u);
  const auto& job = study.jobs.front();
  EvalContext context;
  const auto run = evaluate(Scenario::load(kDefaultScenario)
                                .with_assignments(cluster_test_changes(32).get<std::vector<std::string>>())
                                .with_assignments({"cluster.fabric.kind=\"top_of_rack\"",
                                                   "cluster.fabric.oversubscription.leaf=4.000000", "network=\"flow\"",
                                                   R"(placement={"nodes": [0, 4, 7, 8], "build_nodes": 16})"}),
                            context);
  ASSERT_TRUE(run.step.shared_fabric);
  EXPECT_EQ(job.alone.step_time_s, run.step.report.step_time_s);
  EXPECT_EQ(job.alone.exposed_comm_s, run.step.report.breakdown.exposed_comm_s.total());
  EXPECT_EQ(job.alone.tokens_per_s, run.step.report.tokens_per_s);
  ASSERT_EQ(job.shared.size(), 1u);
  EXPECT_EQ(job.shared.front().step_time_s, run.step.report.step_time_s);
  EXPECT_EQ(job.slowdown, 1.0);
  EXPECT_EQ(job.leaves, 2);
  EXPECT_TRUE(job.contended.empty());
}

// Oracle: jobs under leaves of their own share no link, so each runs as it runs alone, step
// after step; the same jobs across the same leaves do slow each other (not vacuous).
TEST(ClusterJobs, JobsOnDisjointLeavesDoNotInteract) {
  nlohmann::json apart = cluster_test_build(4);
  apart["steps"] = 2;
  apart["jobs"].push_back(cluster_test_job("a", {0, 1, 2, 3}));
  apart["jobs"].push_back(cluster_test_job("b", {6, 7, 8, 9}));
  const ClusterStudy study = run_cluster_document(apart);
  ASSERT_EQ(study.jobs.size(), 2u);
  for (const auto& job : study.jobs) {
    ASSERT_EQ(job.shared.size(), 2u);
    EXPECT_EQ(job.leaves, 1) << job.name;
    for (const auto& step : job.shared) EXPECT_NEAR(step.step_time_s, job.alone.step_time_s, 1e-12) << job.name;
    EXPECT_TRUE(job.contended.empty()) << job.name;
  }
  nlohmann::json across = cluster_test_build(4);
  across["jobs"].push_back(cluster_test_job("a", {0, 1, 6, 7}));
  across["jobs"].push_back(cluster_test_job("b", {2, 3, 8, 9}));
  const ClusterStudy crossing = run_cluster_document(across);
  for (const auto& job : crossing.jobs) {
    EXPECT_GT(job.slowdown, 1.01) << job.name;
    ASSERT_FALSE(job.contended.empty()) << job.name;
    EXPECT_EQ(job.contended.front().kind, "leaf_spine") << job.name;
  }
}

// Oracle (closed form): at 56:1 a leaf of 7 nodes has one 400 Gb/s uplink. Two jobs of one node
// under each of leaves 0 and 1, alike and started together, put their DP all-reduces (8 rails
// each, bound by that uplink alone) through it at the same time: each gets half of it, so its
// all-reduce takes twice as long and its step grows by exactly its exposed DP time alone
// (less the all-reduce's latency, microseconds against tens of milliseconds).
TEST(ClusterJobs, TwoJobsThroughOneUplinkEachGetHalfOfIt) {
  nlohmann::json document = cluster_test_build(56);
  document["jobs"].push_back(cluster_test_job("a", {0, 7}));
  document["jobs"].push_back(cluster_test_job("b", {1, 8}));
  const ClusterStudy study = run_cluster_document(document);
  EvalContext context;
  const auto alone = evaluate(Scenario::load(kDefaultScenario)
                                  .with_assignments(cluster_test_changes(16).get<std::vector<std::string>>())
                                  .with_assignments({"cluster.fabric.kind=\"top_of_rack\"",
                                                     "cluster.fabric.oversubscription.leaf=56", "network=\"flow\"",
                                                     R"(placement={"nodes": [0, 7], "build_nodes": 16})"}),
                              context);
  const double dp = alone.step.report.breakdown.exposed_comm_s.dp;
  ASSERT_GT(dp, 0.2 * alone.step.report.step_time_s);  // the all-reduce is a good part of the step
  for (const auto& job : study.jobs) {
    EXPECT_NEAR(job.alone.step_time_s, alone.step.report.step_time_s, 1e-12) << job.name;
    EXPECT_NEAR(job.shared_mean.step_time_s - job.alone.step_time_s, dp, 0.01 * dp) << job.name;
    ASSERT_FALSE(job.contended.empty()) << job.name;
    EXPECT_EQ(job.contended.front().bytes, job.contended.front().others_bytes) << job.name;  // alike
  }
  EXPECT_EQ(study.jobs[0].shared_mean.step_time_s, study.jobs[1].shared_mean.step_time_s);
}

// Oracle: a job on a pool whose A100 group has its own servers (DGX A100, 200 Gb/s NICs),
// balanced by speed with its DP replicas on both kinds (pp 1), is `ctwin run --network flow` of
// its scenario to the bit: the same DP shares, the same class of replicas, the same build.
TEST(ClusterJobs, APoolJobWithItsOwnServersAndSharesIsItsRun) {
  const std::vector<std::string> changes{"gpus=32", "model.layers=2", "parallel.tp=8", "parallel.pp=1",
                                         "training.global_batch=16", "pool={\"balance\": \"speed\"}"};
  nlohmann::json document{{"cluster", "topologies/pools/a100-h100-own-servers.json"},
                          {"nodes", 4},
                          {"set", {"node_groups.0.nodes=2", "node_groups.1.nodes=2"}},
                          {"jobs", {{{"name", "pooled"}, {"scenario", kDefaultScenario}, {"set", changes}, {"nodes", {0, 1, 2, 3}}}}}};
  const ClusterStudy study = run_cluster_document(document);
  ASSERT_EQ(study.jobs.size(), 1u);
  const auto& job = study.jobs.front();
  nlohmann::json build = load_json_file((kRootDir / "topologies/pools/a100-h100-own-servers.json").string());
  build["node_groups"][0]["nodes"] = 2;
  build["node_groups"][1]["nodes"] = 2;
  EvalContext context;
  const auto run = evaluate(
      Scenario::load(kDefaultScenario).with_assignments(changes).with("cluster", build).with("network", "flow"), context);
  ASSERT_TRUE(run.step.shared_fabric);
  ASSERT_FALSE(run.step.report.dp_shares.empty());
  EXPECT_EQ(job.dp_micro_batches, run.step.report.dp_shares);
  EXPECT_NE(job.dp_micro_batches.front(), job.dp_micro_batches.back());  // the A100 replicas get fewer
  EXPECT_EQ(job.alone.step_time_s, run.step.report.step_time_s);
  EXPECT_EQ(job.alone.tokens_per_s, run.step.report.tokens_per_s);
  EXPECT_EQ(job.shared.front().step_time_s, run.step.report.step_time_s);
  EXPECT_NE(cluster_json(study).dump().find("\"dp_micro_batches\""), std::string::npos);
  // One build lays the groups in one order: a job ordering them otherwise is refused.
  nlohmann::json reordered = document;
  reordered["jobs"][0]["set"] = {"gpus=16", "model.layers=2", "parallel.tp=8", "parallel.pp=1", "training.global_batch=8"};
  reordered["jobs"][0]["nodes"] = {0, 1};
  reordered["jobs"].push_back({{"name", "other"}, {"scenario", kDefaultScenario}, {"nodes", {2, 3}},
                               {"set", {"gpus=16", "model.layers=2", "parallel.tp=8", "parallel.pp=1",
                                        "training.global_batch=8", "pool={\"order\": [\"h100\", \"a100\"]}"}}});
  EXPECT_NE(cluster_document_error(reordered).find("jobs.json: /jobs/1/scenario: lays the node groups"), std::string::npos)
      << cluster_document_error(reordered);
}

TEST(ClusterJobs, BadInputNamesTheFileAndTheField) {
  const auto with_jobs = [](std::vector<nlohmann::json> jobs) {
    nlohmann::json document = cluster_test_build(4);
    for (auto& job : jobs) document["jobs"].push_back(std::move(job));
    return document;
  };
  EXPECT_NE(cluster_document_error(with_jobs({cluster_test_job("a", {0, 1, 2, 3}), cluster_test_job("b", {3, 4, 5, 6})}))
                .find("jobs.json: /jobs/1/nodes/0: node 3 is held by job a"),
            std::string::npos);
  EXPECT_NE(cluster_document_error(with_jobs({cluster_test_job("a", {0, 1, 2, 16})})).find("jobs.json: /jobs/0/nodes/3: node 16 is beyond the build of 16 nodes"),
            std::string::npos);
  nlohmann::json big = cluster_test_job("big", {0});
  big.erase("nodes");
  big["placement"] = "packed";
  big["set"] = cluster_test_changes(128);
  EXPECT_NE(cluster_document_error(with_jobs({cluster_test_job("a", {0, 1, 2, 3}), big})).find("jobs.json: /jobs/1/placement: packed cannot place"),
            std::string::npos)
      << cluster_document_error(with_jobs({cluster_test_job("a", {0, 1, 2, 3}), big}));
  nlohmann::json colour = cluster_test_job("a", {0, 1, 2, 3});
  colour["colour"] = "red";
  EXPECT_NE(cluster_document_error(with_jobs({colour})).find("jobs.json: /jobs/0/colour"), std::string::npos) << cluster_document_error(with_jobs({colour}));
  nlohmann::json short_list = cluster_test_job("a", {0, 1, 2, 3});
  short_list["nodes"] = {0, 1};
  EXPECT_NE(cluster_document_error(with_jobs({short_list})).find("jobs.json: /jobs/0/nodes"), std::string::npos) << cluster_document_error(with_jobs({short_list}));
  nlohmann::json moved = cluster_test_job("a", {0, 1, 2, 3});
  moved["set"].push_back("cluster.fabric.kind=\"rail_optimized\"");
  EXPECT_NE(cluster_document_error(with_jobs({moved})).find("jobs.json: /jobs/0/set/7"), std::string::npos) << cluster_document_error(with_jobs({moved}));
  nlohmann::json top = with_jobs({cluster_test_job("a", {0, 1, 2, 3})});
  top["tenants"] = 2;
  EXPECT_NE(cluster_document_error(top).find("jobs.json: /tenants"), std::string::npos) << cluster_document_error(top);
  EXPECT_NE(cluster_document_error(with_jobs({})).find("jobs.json: /jobs"), std::string::npos);
}

// The scheduler what-if on half of the 16 nodes busy: three 4-node jobs where two fit. Every
// policy places a and b and lists c; utilisation is the placed GPUs' useful share: never above
// the allocated share (no job runs faster than alone and packed on the empty build), and the
// formula's own sum. A mix that fits nowhere leaves every job out and nothing used.
TEST(ClusterPolicies, EachPolicyPlacesWhatFitsAndListsTheRest) {
  nlohmann::json document = cluster_test_build(4);
  document["fragmentation"] = 0.5;
  for (const char* name : {"a", "b", "c"}) {
    nlohmann::json job = cluster_test_job(name, {0, 1, 2, 3});
    job.erase("nodes");
    job["placement"] = "fragmented";
    document["jobs"].push_back(job);
  }
  ClusterQuery query;
  query.document = document;
  query.source = "jobs.json";
  query.dir = kRootDir;
  EvalContext context;
  const ClusterPolicyComparison c = compare_cluster_policies(query, context);
  EXPECT_EQ(c.free_gpus, 64);
  ASSERT_EQ(c.policies.size(), 4u);
  for (const auto& p : c.policies) {
    EXPECT_EQ(p.study.unplaced, std::vector<std::string>{"c"}) << p.policy;
    ASSERT_EQ(p.study.jobs.size(), 2u) << p.policy;
    EXPECT_EQ(p.allocated_share, 1.0) << p.policy;
    double useful = 0;
    for (const auto& job : p.study.jobs) {
      const auto at = std::find(c.jobs.begin(), c.jobs.end(), job.name);
      ASSERT_NE(at, c.jobs.end()) << job.name;
      const double best = c.best_step_s[static_cast<std::size_t>(at - c.jobs.begin())];
      // The best step is the fastest alone: no placement of this comparison runs the job faster.
      EXPECT_LE(best, job.alone.step_time_s) << p.policy << " " << job.name;
      EXPECT_GE(job.shared_mean.step_time_s, best * (1 - 1e-12)) << p.policy << " " << job.name;
      useful += 32 * best / job.shared_mean.step_time_s;
    }
    EXPECT_NEAR(p.utilisation, useful / 64, 1e-12) << p.policy;
    EXPECT_LE(p.utilisation, p.allocated_share) << p.policy;
  }
  for (auto& job : query.document["jobs"]) job["set"] = cluster_test_changes(96);
  const ClusterPolicyComparison none = [&] {
    ClusterQuery big = query;
    big.document["jobs"].erase(1);
    big.document["jobs"].erase(1);
    return compare_cluster_policies(big, context);
  }();
  for (const auto& p : none.policies) {
    EXPECT_EQ(p.study.unplaced, std::vector<std::string>{"a"}) << p.policy;
    EXPECT_EQ(p.utilisation, 0.0) << p.policy;
  }
}

}  // namespace
}  // namespace ctwin::api
