#pragma once
// The same fabric as a SimGrid platform, with transfers solved by SimGrid's own flow model:
// the independent reference the `flow` model is checked against. SimGrid keeps one engine per
// process, so only one SimGridModel may exist at a time, and only once per process.

#include <memory>

#include "ctwin/network/network_model.hpp"

namespace ctwin::network {

class SimGridModel final : public NetworkModel {
 public:
  SimGridModel(const fabric::Fabric& fabric, engine::Simulator& simulator);
  ~SimGridModel() override;

  void start_transfer(const TransferRequest& request, Completion done) override;
  /// Runs SimGrid's engine, with ctwin's events interleaved at their times.
  void run() override;
  [[nodiscard]] std::string_view name() const override { return "simgrid"; }

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace ctwin::network
