#pragma once
// Who moves a communication op's bytes while a step is replayed.
//
// The isolated executor gives every op the time the communication twin predicted for it alone
// on its group's fabric (comm_groups.hpp). The shared-fabric executor (shared_fabric.hpp) puts
// the traffic of every op in flight on one flow simulation of the whole cluster, so that TP, PP,
// DP, CP and EP traffic that overlap in time share NICs, leaves and spines.
//
// A call names the stage, and either one group (its leader's stage-local rank, in an all-ranks
// replay once every member has issued it) or, with leader −1, every group of that shape in the
// stage: a replay that simulates one rank per stage stands for all of them.

#include <cstdint>
#include <functional>

#include "ctwin/core/units.hpp"
#include "ctwin/engine/simulator.hpp"
#include "ctwin/replay/comm_groups.hpp"

namespace ctwin::replay {

inline constexpr std::int64_t kEveryGroup = -1;

class CommExecutor {
 public:
  using Done = std::function<void()>;
  virtual ~CommExecutor() = default;

  /// Starts `call` now, `isolated` being its predicted time alone; `done` runs at its end.
  virtual void start_collective(const CommCall& call, SimTime isolated, int stage, std::int64_t leader, Done done) = 0;
  /// A pipeline send of `call` from stage `from` to stage `to`, by stage-local rank `local`
  /// (kEveryGroup: every rank of the stage sends to its peer).
  virtual void start_send(const CommCall& call, SimTime isolated, int from, int to, std::int64_t local, Done done) = 0;
};

class IsolatedExecutor final : public CommExecutor {
 public:
  /// `placed`: prices each group on the nodes the placement puts its members on
  /// (CollectiveTimes::placed_time); null: every group the op's time.
  explicit IsolatedExecutor(engine::Simulator& simulator, CollectiveTimes* placed = nullptr)
      : simulator_(simulator), placed_(placed) {}
  void start_collective(const CommCall& call, SimTime isolated, int stage, std::int64_t leader, Done done) override {
    simulator_.schedule_in(placed_ ? placed_->placed_time(call, isolated, stage, leader) : isolated, std::move(done));
  }
  void start_send(const CommCall& call, SimTime isolated, int from, int to, std::int64_t, Done done) override {
    simulator_.schedule_in(placed_ ? placed_->send_time(call, isolated, from, to) : isolated, std::move(done));
  }

 private:
  engine::Simulator& simulator_;
  CollectiveTimes* placed_ = nullptr;
};

}  // namespace ctwin::replay
