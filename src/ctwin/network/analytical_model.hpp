#pragma once
// Contention-free: a transfer takes its path's latency plus its size over the path's slowest
// link, whatever else is in flight. The oracle the other models reduce to when nothing is
// shared.

#include "ctwin/network/network_model.hpp"

namespace ctwin::network {

class AnalyticalModel final : public NetworkModel {
 public:
  using NetworkModel::NetworkModel;
  void start_transfer(const TransferRequest& request, Completion done) override;
  [[nodiscard]] std::string_view name() const override { return "analytical"; }

 private:
  std::vector<fabric::LinkId> path_;
};

}  // namespace ctwin::network
