#pragma once
// One interface for every way ctwin moves bytes: start a transfer of N bytes from GPU A to GPU
// B, get called back when its last byte has arrived. Models differ in how concurrent
// transfers share links: not at all (analytical), by max-min fair flow rates (flow), or by
// SimGrid's solver (simgrid, the reference for flow).

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ctwin/core/units.hpp"
#include "ctwin/engine/simulator.hpp"
#include "ctwin/fabric/fabric.hpp"
#include "ctwin/fabric/router.hpp"

namespace ctwin::network {

using fabric::GpuId;

struct TransferRequest {
  GpuId src = 0;
  GpuId dst = 0;
  Bytes size;
  fabric::RouteOptions route;
};

/// Totals every model keeps, so tests can check conservation.
struct TransferStats {
  std::uint64_t started = 0;
  std::uint64_t completed = 0;
  Bytes bytes_started;
  Bytes bytes_delivered;
};

class NetworkModel {
 public:
  using Completion = std::function<void()>;

  NetworkModel(const fabric::Fabric& fabric, engine::Simulator& simulator) : fabric_(fabric), simulator_(simulator) {}
  virtual ~NetworkModel() = default;
  NetworkModel(const NetworkModel&) = delete;
  NetworkModel& operator=(const NetworkModel&) = delete;

  /// Starts moving `request.size` bytes now; `done` runs in simulated time once they arrived.
  /// Sizes must not be negative; a zero-byte transfer takes the path's latency.
  virtual void start_transfer(const TransferRequest& request, Completion done) = 0;

  /// Runs until no event and no transfer is left. Models with their own clock (simgrid)
  /// drive the simulator from theirs.
  virtual void run() { simulator_.run(); }

  [[nodiscard]] virtual std::string_view name() const = 0;
  [[nodiscard]] const TransferStats& stats() const { return stats_; }
  [[nodiscard]] const fabric::Fabric& fabric() const { return fabric_; }
  [[nodiscard]] engine::Simulator& simulator() { return simulator_; }

 protected:
  const fabric::Fabric& fabric_;
  engine::Simulator& simulator_;
  TransferStats stats_;
};

/// The network models, by how concurrent transfers share links (see the file comment).
enum class ModelKind { kAnalytical, kFlow, kSimgrid };

[[nodiscard]] std::string_view name(ModelKind kind);

/// The names `parse_model_kind` accepts: simgrid only when built with SimGrid.
[[nodiscard]] std::vector<std::string> network_model_names();

/// "analytical", "flow" or "simgrid" (when built with SimGrid); anything else is an InputError
/// naming `file` and `field` (a flag such as `--network`, or a scenario and its JSON pointer).
[[nodiscard]] ModelKind parse_model_kind(std::string_view text, const std::string& file, const std::string& field);

/// Throws the topology file's error when its routing is not one `model` simulates (adaptive
/// routing is analytical's and flow's, not simgrid's).
void require_ecmp_routing(const fabric::Fabric& fabric, std::string_view model);

[[nodiscard]] std::unique_ptr<NetworkModel> make_network_model(ModelKind kind, const fabric::Fabric& fabric,
                                                               engine::Simulator& simulator);

using fabric::path_properties;
using fabric::PathProperties;

}  // namespace ctwin::network
