#pragma once
// An acceptance plan (scenarios/acceptance/*.json): the tests a cluster must pass before it is
// accepted, each with its kind, parameters, the metric it reads and the tolerance that counts as
// a pass. The default plan follows the 10k-card acceptance method of the seeds (p2p per path
// class, collectives over sizes and node counts, compute, training growing with the nodes,
// reliability with a 2K+X spare pool); docs/accept.md describes every key.

#include <cstdint>
#include <string>
#include <vector>

#include "ctwin/collectives/collective.hpp"
#include "ctwin/core/units.hpp"

namespace ctwin::api {

enum class AcceptanceKind { kP2p, kCollective, kGemm, kTraining, kReliability };

/// The four ways a GPU reaches another in a rail-optimized build (seed 003, section 4.3): over
/// NVLink in its node, through one leaf to the same rail of another node, through a spine to
/// another rail, and through the spines (or cores) to another scalable unit.
enum class PathClass { kSameNode, kSameRail, kCrossRail, kCrossSu };

struct Tolerance {
  enum class Unit { kPercent, kPoints };  ///< share of the expected value, or points of a fraction
  double value = 0;
  Unit unit = Unit::kPercent;
  std::string text;  ///< as written, "10%", "3pp"
};

struct AcceptanceTest {
  std::string id;
  AcceptanceKind kind = AcceptanceKind::kP2p;
  std::string metric;  ///< bandwidth, latency, busbw, tflops, throughput, linearity, mfu, flops_per_watt, mtbf, mttr, availability
  Tolerance tolerance;
  // p2p
  PathClass path = PathClass::kSameNode;
  Bytes size;
  // collective
  collectives::Op op = collectives::Op::kAllReduce;
  collectives::Algorithm algorithm = collectives::Algorithm::kAuto;
  Bytes begin, end;
  double factor = 2;
  std::vector<std::int64_t> nodes;  ///< collective and training; 0 stands for the whole build
  // gemm
  std::int64_t m = 0, n = 0, k = 0;
  std::string dtype = "bf16";
  // training and reliability
  std::string scenario;    ///< resolved against the plan's folder, then the data folder
  std::vector<std::string> set;  ///< training: scenario changes, "parallel.tp=4" (a parallel strategy's test)
  double gpu_power_w = 0;  ///< flops_per_watt: board power per GPU
  double days = 0;         ///< reliability: the run's length
  std::string spares = "5%";
};

struct AcceptancePlan {
  std::string source;  ///< the file, for messages
  std::string name;
  std::string description;
  std::vector<AcceptanceTest> tests;
};

/// Reads a plan. InputError naming the file and the test's JSON pointer for an unknown kind,
/// metric or key, a metric the kind cannot read, a tolerance without its unit (% or pp), a
/// repeated id, or an absurd value.
[[nodiscard]] AcceptancePlan load_acceptance_plan(const std::string& path);

[[nodiscard]] const char* to_string(AcceptanceKind kind);
[[nodiscard]] const char* to_string(PathClass path);
/// The metric's unit as printed: "GB/s", "us", "TFLOP/s", "tokens/s/GPU", "h", "" for fractions.
[[nodiscard]] const char* metric_unit(const std::string& metric);
/// Whether a larger measured value is better (bandwidths, rates, fractions, MTBF) or worse
/// (latency, MTTR).
[[nodiscard]] bool higher_is_better(const std::string& metric);
/// The worst value that still passes: expected × (1 ∓ tol) for %, expected ∓ tol/100 for pp.
[[nodiscard]] double pass_threshold(double expected, const std::string& metric, const Tolerance& tolerance);

}  // namespace ctwin::api
