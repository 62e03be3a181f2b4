#include "ctwin/api/eval_context.hpp"

#include "ctwin/core/limits.hpp"

namespace ctwin::api {

std::shared_ptr<replay::CollectiveCache> EvalContext::collectives(const std::string& cluster_key,
                                                                  network::ModelKind network) {
  const std::lock_guard lock(mutex_);
  auto& slot = collectives_[{cluster_key, network}];
  if (!slot) {
    slot = std::make_shared<replay::CollectiveCache>();
    ++counts_.collective_caches;
  }
  return slot;
}

std::shared_ptr<const fabric::Fabric> EvalContext::fabric(const std::string& cluster_key,
                                                          const fabric::ClusterSpec& cluster, std::int64_t gpus) {
  // Built under the lock: two threads asking for the same large build would otherwise build it twice.
  const std::lock_guard lock(mutex_);
  auto& slot = fabrics_[{cluster_key, gpus}];
  if (slot) {
    ++counts_.fabric_reuses;
  } else {
    slot = std::make_shared<const fabric::Fabric>(cluster, limits::gpu_count(gpus));
    ++counts_.fabrics_built;
  }
  return slot;
}

EvalContext::Counts EvalContext::counts() const {
  const std::lock_guard lock(mutex_);
  return counts_;
}

}  // namespace ctwin::api
