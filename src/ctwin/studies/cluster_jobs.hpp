#pragma once
// `ctwin cluster JOBS.json` for every front end (docs/cluster.md, "Several jobs on one build"):
// a JOBS file names one build (a topology and its node count) and jobs on it, each a scenario
// with changes, an explicit node list or a node policy, and a start offset or a phase shift.
// Each job is replayed alone on the build, then all of them together on one flow simulation of
// it (replay/cluster_replay.hpp); the study compares the two per job.
// The CLI prints cluster_json(...) (studies/cluster_json.hpp) and Python's to_dict() reads the same bytes.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ctwin/api/eval_context.hpp"
#include "ctwin/replay/placement.hpp"
#include "ctwin/replay/scenario.hpp"
#include "ctwin/replay/step_report.hpp"

namespace ctwin::api {

struct ClusterQuery {
  nlohmann::json document;    ///< the JOBS file's content
  std::string source;         ///< names it in errors
  std::filesystem::path dir;  ///< relative paths inside it are tried here first, then under data_dir()
  std::optional<int> steps;   ///< overrides the file's "steps" (the window); errors name --steps
  /// A job a policy cannot place is left out and listed (ClusterStudy::unplaced) instead of an
  /// InputError (the scheduler what-if, cluster_policies.hpp).
  bool drop_unplaced = false;
};

/// The JOBS file at `path` (tried under data_dir() too); InputError naming it when unreadable.
[[nodiscard]] ClusterQuery cluster_query_from_file(const std::string& path);

/// A link that a job's traffic shares with other jobs' over the window.
struct ContendedLink {
  std::int64_t link = 0;  ///< the build's link id
  std::string label;      ///< replay::link_label
  std::string kind;       ///< fabric::LinkKind's name
  double bytes = 0;       ///< the job's over the window
  double others_bytes = 0;  ///< every other job's over the window
};

/// One step's headline figures.
struct ClusterStepFigures {
  double step_time_s = 0;
  double exposed_comm_s = 0;
  double tokens_per_s = 0;
};

struct ClusterJobResult {
  std::string name;
  std::string scenario;  ///< as the file names it
  replay::Scenario resolved;
  std::string placement;  ///< "nodes" or the node policy's name
  std::vector<std::int64_t> nodes;  ///< in rank order
  std::int64_t leaves = 0;
  double start_s = 0;
  double phase_shift = 0;  ///< the fraction of its alone step it was offset by, when the file gave one
  ClusterStepFigures alone;
  std::vector<ClusterStepFigures> shared;  ///< each step of the window
  ClusterStepFigures shared_mean;
  double slowdown = 1;  ///< shared mean step / alone step
  double fabric_bytes = 0;  ///< paced bytes it put on the fabric over the window
  /// Micro-batches per DP replica where a pool's speed balance makes them unequal (as `run`'s
  /// pool.dp_micro_batches); the job's steps are then its slowest class of replicas'.
  std::vector<std::int64_t> dp_micro_batches;
  std::vector<ContendedLink> contended;  ///< the most contended first, at most 3
  /// With background traffic: its first step alone on the build beside the background alone,
  /// and that step over `alone`'s (the slowdown the background causes it).
  std::optional<ClusterStepFigures> alone_with_background;
  double background_slowdown = 1;
};

/// A directed background stream (studies/cluster_background.hpp) and what the fabric gave it.
struct ClusterBackgroundFigures {
  int entry = 0;          ///< index in the file's "background" list
  std::string label;      ///< its link, or its two nodes
  double rate_Gbps = 0;   ///< asked
  double achieved_Gbps = 0;  ///< its mean rate in the shared replay, to its last chunk in the window
  bool less_than_asked = false;  ///< got under 99 % of its rate: its links are full
};

struct ClusterStudy {
  std::string source;
  std::string cluster;  ///< the build's topology name
  std::int64_t build_nodes = 0;
  std::int64_t build_gpus = 0;
  std::int64_t busy_nodes = 0;  ///< held by other tenants before the jobs were placed
  int steps = 1;
  std::vector<ClusterJobResult> jobs;
  std::vector<std::string> unplaced;  ///< with drop_unplaced: jobs no free nodes could hold, in file order
  std::vector<ClusterBackgroundFigures> background;  ///< every directed stream, in file order
  double window_end_s = 0;  ///< when the last job's window ended
  std::uint64_t events = 0;  ///< of the shared replay
};

[[nodiscard]] ClusterStudy evaluate_cluster(const ClusterQuery& query, EvalContext& context);

}  // namespace ctwin::api
