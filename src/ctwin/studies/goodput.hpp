#pragma once
// `ctwin goodput` for every front end: a scenario, a reliability model, a storage tier, a spare
// policy and straggler events become analysis::run_goodput_study's inputs; the step times of the
// job, of its shrunk versions and of its throttled stages come from the twin (api::evaluate).
// The CLI prints goodput_json(...) for --format json and Python's to_dict() reads the same bytes.
// Errors name the CLI's flags ("--spares"), which Python's keyword arguments mirror.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ctwin/analysis/goodput_study.hpp"
#include "ctwin/analysis/reliability_model.hpp"
#include "ctwin/api/eval_context.hpp"
#include "ctwin/api/scenario.hpp"
#include "ctwin/studies/goodput_checkpoint.hpp"
#include "ctwin/studies/plane_leaf_effect.hpp"
#include "ctwin/studies/shrunk_jobs.hpp"
#include "ctwin/studies/straggler_effects.hpp"
#include "ctwin/replay/scenario.hpp"

namespace ctwin::api {

struct GoodputQuery {
  /// The job: a scenario value, loaded from a file or built in memory, its changes (--set,
  /// --network) applied; required.
  std::optional<Scenario> scenario;
  double days = 0;
  std::string interval = "auto";  ///< training time between checkpoints ("30min"), or auto: the simulated best
  std::string spares = "5%";      ///< hot spares: "16", "5%" or "2/su"
  std::string cold_spares = "0";
  std::string hot_swap = "30s";
  std::string cold_swap = "2h";
  std::string on_empty = "wait";  ///< wait or shrink
  std::string reliability = "models/reliability/gpu-cluster.json";
  std::string storage_file = "models/reliability/storage.json";
  std::string storage = "auto";  ///< a tier of storage_file, cluster:NAME, or auto (checkpoint_tier)
  bool fp32_master = true;
  std::string step_time;  ///< "8.5s" instead of the simulated step; empty: simulated
  std::string straggler_rate = "0/h";  ///< throttling events per GPU-hour
  double straggler_speed = 0.8;
  std::string straggler_duration = "30min";
  int runs = 1000;
  std::uint64_t seed = 1;
};

struct GoodputStragglers {
  double rate_per_gpu_hour = 0;
  double speed = 1;
  double duration_s = 0;
  double healthy_step_time_s = 0;
  std::map<std::int64_t, StragglerEffect> effects;  ///< by stage, those an event landed on
  double expected_lost_s = 0;  ///< rate·GPUs·D·duration·mean over those stages of (1 − 1/effect)
};

struct GoodputEvaluation {
  replay::Scenario scenario;
  std::shared_ptr<const analysis::ReliabilityModel> model;  ///< the study's sources point into it
  analysis::GoodputStudy study;
  std::map<long long, ShrunkJob> shrunk_jobs;  ///< by replica count (shrink), the whole job's included
  std::optional<GoodputStragglers> stragglers;  ///< when the rate is not zero
  std::optional<LeafDownEffect> leaf_down;      ///< dual-plane builds: a leaf failure slows the job by this
  std::optional<GoodputScenarioCheckpoint> checkpoint;  ///< scenarios with "checkpoint": its figures and their origins
};

/// The checkpoint tier `storage` names: "cluster:NAME", a shared tier of `cluster`'s storage, a
/// tier of `storage_file` (models/reliability/storage.json), or "auto": the first shared tier of
/// the cluster's storage that gives a write rate, else the file's "pfs". InputError naming
/// `origin` if none is.
[[nodiscard]] analysis::StorageTier checkpoint_tier(const std::string& storage, const std::string& storage_file,
                                                   const fabric::ClusterSpec& cluster, const std::string& origin);

[[nodiscard]] GoodputEvaluation evaluate_goodput(const GoodputQuery& query, EvalContext& context);

[[nodiscard]] nlohmann::json goodput_json(const GoodputEvaluation& evaluation);

}  // namespace ctwin::api
