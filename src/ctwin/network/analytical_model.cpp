#include "ctwin/network/analytical_model.hpp"

#include "ctwin/core/error.hpp"

namespace ctwin::network {

void AnalyticalModel::start_transfer(const TransferRequest& request, Completion done) {
  CTWIN_ASSERT(request.size >= Bytes(0), "transfer sizes are not negative");
  path_.clear();
  fabric::append_route(fabric_, request.src, request.dst, request.route, path_);
  const PathProperties path = path_properties(fabric_, path_);
  const SimTime duration =
      path_.empty() ? SimTime() : path.latency + transfer_time(request.size, path.bottleneck);
  ++stats_.started;
  stats_.bytes_started += request.size;
  simulator_.schedule_in(duration, [this, size = request.size, done = std::move(done)] {
    ++stats_.completed;
    stats_.bytes_delivered += size;
    done();
  });
}

}  // namespace ctwin::network
