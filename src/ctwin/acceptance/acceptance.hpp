#pragma once
// `ctwin accept`: what every test of an acceptance plan should show on the healthy build, with
// its pass threshold (evaluate_acceptance), and, given what the tests measured, each measurement
// beside its expectation with the parts that best explain the failures (check_acceptance in
// acceptance_check.hpp). Every figure comes from the api's own evaluations on one EvalContext:
// collectives from evaluate_collective, training from evaluate_scaling, reliability from the
// goodput study, GEMMs from evaluate_gemm, p2p from the built fabric's paths.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ctwin/acceptance/acceptance_plan.hpp"
#include "ctwin/analysis/error_bands.hpp"
#include "ctwin/api/degraded_build.hpp"
#include "ctwin/api/evaluate.hpp"

namespace ctwin::api {

/// One expected figure: a test at one of its points (a pair, a size and node count, a GPU).
struct ExpectedRow {
  std::string test;
  AcceptanceKind kind = AcceptanceKind::kP2p;
  std::string instance;      ///< "0->1", "nodes=2 size=1048576", "gpu=any", "nodes=16", "build"
  std::string detail;        ///< what the point ran: the path class and pairs, the algorithm, the split
  std::int64_t nodes = 0;    ///< nodes the point spans (0 for a p2p or GEMM point)
  std::int64_t size_bytes = 0;
  std::string metric;
  double expected = 0;
  double threshold = 0;      ///< the worst value that passes
  std::string tolerance;     ///< as the plan wrote it
  /// What would be measured, p10 to p90, for a training point's throughput, MFU and FLOPs per watt:
  /// the error band of its scenario's class (analysis/error_bands.hpp). None for other metrics, and
  /// for linearity (a ratio of two predictions of one class, whose errors the band would count twice).
  std::optional<analysis::Interval> band;
};

struct AcceptanceOptions {
  unsigned jobs = 1;
  /// Called, one call at a time, as each test point finishes: points done, points in all.
  std::function<void(std::size_t, std::size_t)> progress;
};

struct AcceptanceExpectation {
  std::string plan;     ///< the plan's name
  std::string cluster;  ///< the build's name
  std::int64_t gpus = 0;
  std::int64_t nodes = 0;
  std::vector<ExpectedRow> rows;  ///< in plan order, then by point
};

/// Every test's expected value on the healthy build. InputError for a plan the build cannot run
/// (a node count larger than the build, a p2p class the build has no pair for).
[[nodiscard]] AcceptanceExpectation evaluate_acceptance(const Build& build, const AcceptancePlan& plan, EvalContext& context,
                                                        const AcceptanceOptions& options = {});

[[nodiscard]] std::int64_t test_nodes(std::int64_t nodes, std::int64_t build_nodes);  ///< 0 -> the whole build

}  // namespace ctwin::api
