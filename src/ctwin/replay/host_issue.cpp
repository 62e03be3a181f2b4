#include "ctwin/replay/host_issue.hpp"

namespace ctwin::replay {

SimTime exposed_after_sync(const std::vector<IssuedKernel>& kernels, SimTime host_launch) {
  double host = 0, gpu_end = 0, busy = 0;
  const double launch = host_launch.seconds();
  for (const auto& kernel : kernels) {
    const int launches = kernel.launches > 0 ? kernel.launches : 1;
    const double share = kernel.gpu.seconds() / launches;
    for (int i = 0; i < launches; ++i) {
      host += launch;
      gpu_end = (gpu_end > host ? gpu_end : host) + share;
    }
    busy += kernel.gpu.seconds();
  }
  const double exposed = gpu_end - busy;
  return SimTime::from_seconds(exposed > 0 ? exposed : 0);
}

}  // namespace ctwin::replay
