#include "ctwin/replay/background_traffic.hpp"

#include <algorithm>
#include <cmath>

#include "ctwin/core/error.hpp"
#include "ctwin/network/flow_model.hpp"

namespace ctwin::replay {

BackgroundTraffic::BackgroundTraffic(const std::vector<BackgroundStream>& streams, network::FlowModel& network,
                                     engine::Simulator& simulator, SimTime chunk)
    : streams_(streams), network_(network), simulator_(simulator), results_(streams.size()) {
  CTWIN_ASSERT(chunk > SimTime(), "a background chunk lasts a positive time");
  for (const BackgroundStream& stream : streams_) {
    CTWIN_ASSERT(stream.rate.bytes_per_second() > 0 && !stream.links.empty(), "a stream has a rate and a path");
    const double bytes = std::ceil(stream.rate.bytes_per_second() * chunk.seconds());
    chunk_bytes_.push_back(Bytes(std::max<std::int64_t>(1, static_cast<std::int64_t>(bytes))));
  }
}

void BackgroundTraffic::start() {
  for (std::size_t s = 0; s < streams_.size(); ++s) send_chunk(s);
}

void BackgroundTraffic::send_chunk(std::size_t stream) {
  network_.start_capped_flow(streams_[stream].links, chunk_bytes_[stream], streams_[stream].rate, [this, stream] {
    if (stopped_) return;
    results_[stream].delivered += chunk_bytes_[stream];
    results_[stream].last_arrival = simulator_.now();
    send_chunk(stream);
  });
}

}  // namespace ctwin::replay
