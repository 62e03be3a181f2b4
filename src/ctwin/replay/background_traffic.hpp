#pragma once
// Background traffic on a shared build (docs/cluster.md, "Background traffic"): streams of other
// tenants or storage on chosen links, which take their max-min share of the fabric beside the
// jobs for the whole window, at a constant rate or on a schedule of rates (a burst, a pause).
//
// A stream is a flow capped at its rate (network/flow_model.hpp's start_capped_flow), so it
// gets min(rate, its max-min share): less than asked where its links are full. It is sent as
// back-to-back chunks of `chunk` seconds at its rate, each started when the one before has
// arrived, so that the bytes it moved are known as the window goes (each chunk's delivery) and
// it stops with the window. Between two chunks its links are free for the path's latency
// (microseconds against chunks of milliseconds). On a schedule, a chunk runs at its step's rate
// and ends where the next step begins (a shorter chunk); a step of rate 0 sends nothing until the
// next one.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ctwin/core/units.hpp"
#include "ctwin/engine/simulator.hpp"
#include "ctwin/fabric/fabric.hpp"

namespace ctwin::network {
class FlowModel;
}

namespace ctwin::replay {

/// From `from` (window time) on, until the next step, a stream asks for `rate` (0: silent).
struct RateStep {
  SimTime from;
  Bandwidth rate;
};

/// One stream: a path of the build's links, in order, and the rate it asks for.
struct BackgroundStream {
  std::vector<fabric::LinkId> links;
  Bandwidth rate;  ///< constant for the window; with a schedule, its highest step's
  std::vector<RateStep> schedule;  ///< empty: `rate` throughout; else steps from 0, in time order

  /// The rate asked at window time `t`.
  [[nodiscard]] Bandwidth rate_at(SimTime t) const;
  /// When the next step after `t` begins; nullopt when none does.
  [[nodiscard]] std::optional<SimTime> next_change(SimTime t) const;
  /// Mean rate asked over [0, until] (`rate` for a constant stream).
  [[nodiscard]] Bandwidth mean_rate(SimTime until) const;
};

/// What a stream moved over the window.
struct BackgroundStreamResult {
  Bytes delivered;     ///< bytes of its chunks that arrived before the window's end
  SimTime last_arrival;  ///< when the last of them arrived (0 when none did)
  /// Mean rate from the window's start to its last chunk's arrival: what the fabric gave it.
  /// Zero when no chunk arrived in the window (it got less than a chunk's worth).
  [[nodiscard]] Bandwidth achieved() const {
    return last_arrival > SimTime() ? Bandwidth::bytes_per_second(static_cast<double>(delivered.count()) / last_arrival.seconds())
                                    : Bandwidth();
  }
};

/// Runs streams on a flow model from now until stop().
class BackgroundTraffic {
 public:
  /// `chunk`: the time a chunk takes at the stream's rate (positive).
  BackgroundTraffic(const std::vector<BackgroundStream>& streams, network::FlowModel& network,
                    engine::Simulator& simulator, SimTime chunk);
  /// Starts every stream's first chunk.
  void start();
  /// The window has ended: no chunk starts from now on, and later arrivals are not counted.
  void stop() { stopped_ = true; }
  [[nodiscard]] const std::vector<BackgroundStreamResult>& results() const { return results_; }

 private:
  void send_chunk(std::size_t stream);
  void send_scheduled(std::size_t stream);

  const std::vector<BackgroundStream>& streams_;
  network::FlowModel& network_;
  engine::Simulator& simulator_;
  SimTime chunk_;
  std::vector<Bytes> chunk_bytes_;
  std::vector<BackgroundStreamResult> results_;
  bool stopped_ = false;
};

}  // namespace ctwin::replay
