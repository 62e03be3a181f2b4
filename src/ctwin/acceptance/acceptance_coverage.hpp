#pragma once
// Which tests of an acceptance plan a measured set covers, and the verdict that follows: a build
// is accepted only on evidence, so a test nobody measured is reported missing, never passed.
//
// A test is covered unit by unit, each unit what a full run of the test measures: a p2p test
// every pair of `class_pairs` (a pair counts when its source GPU sent in a measured pair of the
// class: the pairing is the tester's choice), a GEMM test every GPU, a collective test each of
// its node counts (one measured size inside begin..end is enough: nccl-tests sweeps its own
// sizes), a training or reliability test each of its expected points.

#include <cstdint>
#include <string>
#include <vector>

#include "ctwin/acceptance/acceptance.hpp"
#include "ctwin/fabric/fabric.hpp"

namespace ctwin::api {

struct CheckedPoint;
struct MeasuredValue;

enum class CoverageStatus {
  kMeasured,     ///< every unit of the test measured
  kPartial,      ///< some units measured
  kMissing,      ///< nothing measured
  kOutsidePlan,  ///< measured only at sizes beyond the test's begin..end: nothing compared
};
[[nodiscard]] const char* to_string(CoverageStatus status);

struct TestCoverage {
  std::string test;
  AcceptanceKind kind = AcceptanceKind::kP2p;
  CoverageStatus status = CoverageStatus::kMissing;
  std::string unit;            ///< "pair", "GPU", "node count", "point"
  std::int64_t units = 0;      ///< what a full run of the test measures
  std::int64_t covered = 0;    ///< of those, measured
  int points = 0;              ///< measured points compared with an expectation
  int outside_plan = 0;        ///< measured points beyond the test's sizes, not compared
  std::vector<std::string> missing;  ///< the first kMissingListed units not measured, in plan order
};

/// How many missing units a coverage row names (the count is units - covered).
inline constexpr std::size_t kMissingListed = 8;

/// One row per test of the plan, in plan order. `outside` are the measured values not compared
/// (collective sizes beyond the test's begin..end).
[[nodiscard]] std::vector<TestCoverage> test_coverage(const AcceptancePlan& plan, const AcceptanceExpectation& expectation,
                                                      const fabric::Fabric& fabric, const std::vector<CheckedPoint>& points,
                                                      const std::vector<MeasuredValue>& outside);

enum class Verdict {
  kAccepted,     ///< every test of the plan measured, every point passed
  kNotAccepted,  ///< a measured point failed (whatever else is missing)
  kIncomplete,   ///< nothing failed, but some test of the plan is not wholly measured
};
[[nodiscard]] const char* to_string(Verdict verdict);

}  // namespace ctwin::api
