#include "ctwin/studies/cluster_policies.hpp"

#include <algorithm>
#include <map>

#include "ctwin/core/error.hpp"
#include "ctwin/studies/cluster_json.hpp"

namespace ctwin::api {
namespace {

// The JOBS document with every policy job placed by `policy`.
nlohmann::json with_policy(const nlohmann::json& document, const std::string& policy) {
  nlohmann::json out = document;
  if (!out.contains("jobs") || !out["jobs"].is_array()) return out;  // evaluate_cluster names the problem
  for (auto& job : out["jobs"]) {
    if (job.is_object() && job.contains("placement")) job["placement"] = policy;
  }
  return out;
}

// Job `j` alone, packed on the empty build: its best step unless a policy placed it faster.
double best_step_of(const ClusterQuery& query, std::size_t j, EvalContext& context) {
  ClusterQuery alone = query;
  alone.document.erase("fragmentation");
  alone.document.erase("seed");
  nlohmann::json job = query.document["jobs"][j];
  job.erase("nodes");
  job.erase("start_s");
  job.erase("phase_shift");
  job["placement"] = "packed";
  alone.document["jobs"] = nlohmann::json::array({job});
  alone.steps = 1;
  return evaluate_cluster(alone, context).jobs.front().alone.step_time_s;
}

}  // namespace

ClusterPolicyComparison compare_cluster_policies(const ClusterQuery& query, EvalContext& context) {
  ClusterPolicyComparison out;
  for (const std::string policy : {"packed", "spread", "topology_aware", "fragmented"}) {
    ClusterQuery placed = query;
    placed.document = with_policy(query.document, policy);
    placed.drop_unplaced = true;
    ClusterPolicyOutcome outcome;
    outcome.policy = policy;
    outcome.study = evaluate_cluster(placed, context);
    out.policies.push_back(std::move(outcome));
  }
  const ClusterStudy& first = out.policies.front().study;
  // Every job is in some policy's study or unplaced in all: take the names from the file.
  for (const auto& job : query.document["jobs"]) out.jobs.push_back(job.value("name", "job" + std::to_string(out.jobs.size())));
  for (std::size_t j = 0; j < out.jobs.size(); ++j) out.best_step_s.push_back(best_step_of(query, j, context));
  const std::int64_t gpus_per_node = first.build_nodes > 0 ? first.build_gpus / first.build_nodes : 0;
  out.free_gpus = first.build_gpus - first.busy_nodes * gpus_per_node;
  std::map<std::string, double> best;
  for (std::size_t j = 0; j < out.jobs.size(); ++j) best[out.jobs[j]] = out.best_step_s[j];
  for (const auto& outcome : out.policies) {
    for (const auto& job : outcome.study.jobs) best[job.name] = std::min(best[job.name], job.alone.step_time_s);
  }
  for (std::size_t j = 0; j < out.jobs.size(); ++j) out.best_step_s[j] = best[out.jobs[j]];
  for (auto& outcome : out.policies) {
    double useful = 0;
    for (const auto& job : outcome.study.jobs) {
      outcome.placed_gpus += job.resolved.gpus;
      useful += static_cast<double>(job.resolved.gpus) * best[job.name] / job.shared_mean.step_time_s;
    }
    CTWIN_ASSERT(out.free_gpus > 0, "a build that placed jobs has free GPUs");
    outcome.allocated_share = static_cast<double>(outcome.placed_gpus) / static_cast<double>(out.free_gpus);
    outcome.utilisation = useful / static_cast<double>(out.free_gpus);
  }
  return out;
}

nlohmann::json cluster_policies_json(const ClusterPolicyComparison& comparison) {
  nlohmann::json jobs = nlohmann::json::array();
  for (std::size_t j = 0; j < comparison.jobs.size(); ++j) {
    jobs.push_back({{"name", comparison.jobs[j]}, {"best_step_s", comparison.best_step_s[j]}});
  }
  nlohmann::json policies = nlohmann::json::array();
  for (const auto& p : comparison.policies) {
    nlohmann::json study = cluster_json(p.study);
    study["policy"] = p.policy;
    study["unplaced"] = p.study.unplaced;
    study["placed_gpus"] = p.placed_gpus;
    study["allocated_share"] = p.allocated_share;
    study["utilisation"] = p.utilisation;
    policies.push_back(std::move(study));
  }
  return {{"free_gpus", comparison.free_gpus}, {"jobs", std::move(jobs)}, {"policies", std::move(policies)}};
}

}  // namespace ctwin::api
