#include "ctwin/replay/host_issue.hpp"

#include "ctwin/replay/host_timeline.hpp"

namespace ctwin::replay {

SimTime exposed_after_sync(const std::vector<IssuedKernel>& kernels, SimTime host_launch) {
  std::vector<HostKernel> timeline;
  for (const auto& kernel : kernels) {
    const int launches = kernel.launches > 0 ? kernel.launches : 1;
    timeline.push_back({kernel.gpu, SimTime::from_seconds(host_launch.seconds() * launches), launches});
  }
  return issue_timeline(timeline).exposed();
}

}  // namespace ctwin::replay
