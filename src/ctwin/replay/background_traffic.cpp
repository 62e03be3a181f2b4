#include "ctwin/replay/background_traffic.hpp"

#include <algorithm>
#include <cmath>

#include "ctwin/core/error.hpp"
#include "ctwin/network/flow_model.hpp"

namespace ctwin::replay {

Bandwidth BackgroundStream::rate_at(SimTime t) const {
  if (schedule.empty()) return rate;
  Bandwidth now = schedule.front().rate;
  for (const RateStep& step : schedule) {
    if (step.from > t) break;
    now = step.rate;
  }
  return now;
}

std::optional<SimTime> BackgroundStream::next_change(SimTime t) const {
  for (const RateStep& step : schedule) {
    if (step.from > t) return step.from;
  }
  return std::nullopt;
}

Bandwidth BackgroundStream::mean_rate(SimTime until) const {
  if (schedule.empty() || until <= SimTime()) return rate;
  double bytes = 0;
  for (std::size_t i = 0; i < schedule.size() && schedule[i].from < until; ++i) {
    const SimTime end = i + 1 < schedule.size() ? std::min(schedule[i + 1].from, until) : until;
    bytes += schedule[i].rate.bytes_per_second() * (end - schedule[i].from).seconds();
  }
  return Bandwidth::bytes_per_second(bytes / until.seconds());
}

BackgroundTraffic::BackgroundTraffic(const std::vector<BackgroundStream>& streams, network::FlowModel& network,
                                     engine::Simulator& simulator, SimTime chunk)
    : streams_(streams), network_(network), simulator_(simulator), chunk_(chunk), results_(streams.size()) {
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
  if (!streams_[stream].schedule.empty()) {
    send_scheduled(stream);
    return;
  }
  network_.start_capped_flow(streams_[stream].links, chunk_bytes_[stream], streams_[stream].rate, [this, stream] {
    if (stopped_) return;
    results_[stream].delivered += chunk_bytes_[stream];
    results_[stream].last_arrival = simulator_.now();
    send_chunk(stream);
  });
}

void BackgroundTraffic::send_scheduled(std::size_t stream) {
  const BackgroundStream& s = streams_[stream];
  const SimTime now = simulator_.now();
  const Bandwidth rate = s.rate_at(now);
  const std::optional<SimTime> change = s.next_change(now);
  if (rate.bytes_per_second() <= 0) {
    // Silent until its next step: nothing on its links meanwhile.
    if (change) {
      simulator_.schedule_at(*change, [this, stream] {
        if (!stopped_) send_scheduled(stream);
      });
    }
    return;
  }
  const SimTime span = change ? std::min(chunk_, *change - now) : chunk_;
  const Bytes bytes(std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(rate.bytes_per_second() * span.seconds()))));
  network_.start_capped_flow(s.links, bytes, rate, [this, stream, bytes] {
    if (stopped_) return;
    results_[stream].delivered += bytes;
    results_[stream].last_arrival = simulator_.now();
    send_scheduled(stream);
  });
}

}  // namespace ctwin::replay
