#pragma once
// What many evaluations of nearby scenarios share: built fabrics and collective predictions.
// A sweep of a thousand splits on one cluster builds each fabric once and predicts each
// all-reduce once. Thread-safe: parallel sweeps and Python threads share one context.
//
// Keys are the cluster's document after overrides (replay::Scenario::cluster_key), so two
// scenarios share what was built only when their clusters are the same build; a cached result
// is the same value a fresh evaluation computes, so results never depend on what ran before.

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <utility>

#include "ctwin/fabric/fabric.hpp"
#include "ctwin/network/network_model.hpp"
#include "ctwin/replay/comm_groups.hpp"
#include "ctwin/replay/scenario.hpp"

namespace ctwin::api {

class EvalContext {
 public:
  /// The collective predictions made so far on `cluster_key` with `network`.
  [[nodiscard]] std::shared_ptr<replay::CollectiveCache> collectives(const std::string& cluster_key,
                                                                     network::ModelKind network);
  /// The build of the first `gpus` GPUs of `cluster`, built on first use.
  [[nodiscard]] std::shared_ptr<const fabric::Fabric> fabric(const std::string& cluster_key,
                                                             const fabric::ClusterSpec& cluster, std::int64_t gpus);

  /// GPU profiles read so far, for resolving scenarios.
  [[nodiscard]] replay::GpuProfileCache& profiles() { return profiles_; }

  struct Counts {
    std::int64_t fabrics_built = 0;
    std::int64_t fabric_reuses = 0;
    std::int64_t collective_caches = 0;
  };
  [[nodiscard]] Counts counts() const;

 private:
  mutable std::mutex mutex_;
  std::map<std::pair<std::string, network::ModelKind>, std::shared_ptr<replay::CollectiveCache>> collectives_;
  std::map<std::pair<std::string, std::int64_t>, std::shared_ptr<const fabric::Fabric>> fabrics_;
  Counts counts_;
  replay::GpuProfileCache profiles_;
};

}  // namespace ctwin::api
