#pragma once
// The reliability tests of an acceptance plan: MTBF, MTTR and availability of a training job on
// the whole build, from the goodput study (`ctwin goodput` with its defaults: the bundled
// reliability model, the parallel file system tier, 1,000 Monte Carlo runs, seed 1) and the
// plan's spare pool (the seeds' 2K+X: X hot spares, 5-10 % of the nodes).

#include <compare>
#include <string>

#include "ctwin/api/eval_context.hpp"

namespace ctwin::api {

struct GoodputKey {
  std::string scenario;
  double days = 0;
  std::string spares;
  auto operator<=>(const GoodputKey&) const = default;
};

struct AcceptanceGoodput {
  double mtbf_h = 0;        ///< the job's mean time between interruptions
  double mttr_h = 0;        ///< time not training per interruption (detection to resumed)
  double availability = 0;  ///< share of the run not lost to interruptions (checkpoints excluded)
  std::string detail;
};

[[nodiscard]] AcceptanceGoodput evaluate_acceptance_goodput(const GoodputKey& key, const std::string& cluster, std::int64_t gpus,
                                                            EvalContext& context);

}  // namespace ctwin::api
