#pragma once
// What fails in a training cluster, how often, and what each failure takes with it.
//
// A reliability model (models/reliability/*.json) lists component classes, each with a failure
// rate per unit-hour and its source. The number of units comes from the built fabric's bill of
// materials and the server spec (count_components), so a bigger build fails more often by
// construction: the job's failure rate is Λ = Σ_c rate_c · count_c, and under the model's
// assumption of independent exponential failures the expected interruptions over T hours are
// Λ·T and the job's MTBF is 1/Λ.
//
// A failure takes either the job (restart on the same nodes: software faults, links that
// routing avoids), a node (restart on a spare while the node is repaired), or the nodes behind
// a leaf switch (a rail of a scalable unit: NCCL needs every rail of a node).

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "ctwin/fabric/cluster_spec.hpp"

namespace ctwin::fabric {
struct FabricSummary;
}

namespace ctwin::analysis {

/// What one unit of a component class is counted in.
enum class CountBasis {
  kGpu,
  kNode,
  kNic,
  kCpu,
  kLeafSwitch,
  kSpineSwitch,
  kCoreSwitch,
  kAccessCable,        ///< NIC to leaf
  kFabricCable,        ///< switch to switch
  kAccessTransceiver,  ///< optics on NIC-to-leaf cables (both ends)
  kFabricTransceiver,  ///< optics on switch-to-switch cables
  kJob,                ///< one per job: faults whose rate does not grow with the build
};

/// What a failure takes out until it is repaired.
enum class FailureScope {
  kJob,   ///< nothing: the job restarts on the same nodes
  kNode,  ///< the node holding the part
  kLeaf,  ///< every node behind the leaf switch
};

struct ComponentRate {
  std::string name;
  std::string group;  ///< "gpu", "host", "network" or "software": validation compares groups
  CountBasis per = CountBasis::kGpu;
  double rate_per_hour = 0;  ///< failures per unit-hour
  FailureScope takes = FailureScope::kNode;
  double repair_hours = 0;  ///< mean time to repair the part (MTTR), for node and leaf scopes
  std::string source;
  bool assumed = false;  ///< true where no measurement backs the rate (see the file's notes)
};

struct ReliabilityModel {
  std::string name;
  std::string file;
  std::string description;
  double detection_hours = 0;  ///< fault to detection (watchdog, health checks)
  double launch_hours = 0;     ///< job relaunch (scheduler, containers, NCCL init), before the checkpoint load
  std::vector<ComponentRate> components;
};

/// Reads and validates a reliability model; InputError naming the file and field on any problem.
[[nodiscard]] ReliabilityModel load_reliability_model(const std::filesystem::path& path);
[[nodiscard]] ReliabilityModel parse_reliability_model(const nlohmann::json& document, const std::string& source);

/// Units of each CountBasis in a job's build.
struct ComponentCounts {
  long long gpus = 0;
  long long nodes = 0;
  long long nics = 0;
  long long cpus = 0;
  long long leaf_switches = 0;
  long long spine_switches = 0;
  long long core_switches = 0;
  long long access_cables = 0;
  long long fabric_cables = 0;
  long long access_transceivers = 0;
  long long fabric_transceivers = 0;
  int nodes_per_leaf = 1;  ///< nodes a leaf failure takes out
  [[nodiscard]] long long of(CountBasis basis) const;
};

[[nodiscard]] ComponentCounts count_components(const fabric::FabricSummary& summary, const fabric::ClusterSpec& cluster);

/// One component class applied to a build.
struct FailureSource {
  const ComponentRate* component = nullptr;
  long long units = 0;
  double rate_per_hour = 0;  ///< units · rate: this class's failures per hour of the job
  int nodes_taken = 0;       ///< 0 for job scope
};

/// The failure sources of a build, in the model's order; classes with no unit in the build are kept
/// with a zero rate so that reports list every class.
[[nodiscard]] std::vector<FailureSource> failure_sources(const ReliabilityModel& model, const ComponentCounts& counts);

/// Λ = Σ rate: failures per hour of the whole job.
[[nodiscard]] double total_rate_per_hour(const std::vector<FailureSource>& sources);

[[nodiscard]] const char* to_string(CountBasis basis);
[[nodiscard]] const char* to_string(FailureScope scope);

}  // namespace ctwin::analysis
