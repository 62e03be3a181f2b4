#pragma once
// What the acceptance tests measured, beside what the twin expected, and which parts explain the
// failures.
//
// Localization: a part is a suspect when a failed point could cross it (a failed pair's NICs,
// the switch cables of its path and the leaves they leave from; a failed GEMM's GPU), so the
// search never looks beyond what failed. Each suspect is scored by how well the build with that
// part degraded, at the share that fits best (a grid of 5 % steps), reproduces every measured
// point that crosses any suspect or failed:
//   score(part) = min over share of Σ_points (ln measured − ln predicted(part, share))²
// so a part that explains the failures but would also slow points measured healthy ranks below
// one that explains the failures alone (one cable against its whole leaf). Suspects are ranked
// by score; the explanation then adds the best parts one at a time while each removes at least a
// fifth of what is left unexplained (two faults at once: a slow GPU and a degraded uplink).
// Collective failures do not name parts (a collective spans too many parts for its few numbers
// to single one out): they narrow the fault to a range of nodes, and say which measurement
// halves it. Training and reliability failures are reported.

#include <cstdint>
#include <string>
#include <vector>

#include "ctwin/acceptance/acceptance.hpp"
#include "ctwin/acceptance/acceptance_coverage.hpp"
#include "ctwin/fabric/degradation.hpp"

#include <nlohmann/json.hpp>

namespace ctwin::api {

struct MeasuredValue {
  std::string test;
  std::string instance;  ///< as in ExpectedRow: "0->8", "nodes=2 size=1048576", "gpu=12", "nodes=16", "build"
  double value = 0;      ///< in the metric's unit
  std::string source;    ///< file:line
};

struct MeasuredSet {
  std::vector<MeasuredValue> values;
};

/// Reads every file of `dir` (sorted by name): `*.csv` with columns test,instance,value[,unit]
/// (the unit, when given, must be the metric's); nccl-tests logs `<test>.log` (the busbw of
/// every out-of-place row; the rank count from the log's device lines or `<test>@<ranks>.log`
/// must be a node count the plan gives the test); `ib_send_bw` and `osu_bw`/`osu_latency`
/// output `<test>.<SRC>-<DST>.txt` (the largest size's average bandwidth or latency). Any other
/// file, a test the plan lacks, a rank count of another size: InputError naming the file.
[[nodiscard]] MeasuredSet read_measured(const std::string& dir, const AcceptancePlan& plan, const fabric::Fabric& fabric);

struct CheckedPoint {
  std::string test;
  std::string instance;
  std::string metric;
  double expected = 0;
  double threshold = 0;
  double measured = 0;
  bool pass = true;
  std::string source;
};

struct Suspect {
  std::string part;   ///< "nic:12", "link:leaf3.up5", "leaf:3", "gpu:7"
  std::string term;   ///< the degradation that fits best, as --degrade reads it
  double share = 1;   ///< of the nominal rate
  double score = 0;   ///< Σ (ln measured − ln predicted)² over the evidence points
  double explained = 0;  ///< 1 − score / score of the healthy build
  int failures_crossed = 0;  ///< failed points that cross the part
};

/// Where a collective's failures lie along its node counts. A collective measured on N nodes
/// ran on the build's first N nodes (`nodes=N`), so a fault that first shows at F nodes while
/// every point at P < F nodes passed lies on nodes P..F-1 or in the switches that first join
/// them to the rest; the measurement that halves that range is the same collective on (P+F)/2
/// nodes. A collective that fails at F and passes again at more nodes is no node fault (noise
/// or the fabric at one scale): `prefix` is then false.
struct CollectiveNarrowing {
  std::string test;
  std::int64_t passed_nodes = 0;  ///< the most nodes below failed_nodes with every point passing; 0 if none
  std::int64_t failed_nodes = 0;  ///< the fewest nodes with a failed point
  std::int64_t next_nodes = 0;    ///< the node count that halves the range; 0 when it is one node
  bool prefix = true;
};

struct AcceptanceCheck {
  AcceptanceExpectation expectation;
  std::vector<CheckedPoint> points;  ///< in measured order
  int failed = 0;
  int outside_plan = 0;              ///< collective sizes beyond the test's begin..end, not compared
  int evidence_points = 0;           ///< points the suspects were scored on
  std::vector<Suspect> suspects;     ///< best first, at most 10
  std::vector<Suspect> explanation;  ///< parts that together explain the failures, in the order found
  std::vector<CollectiveNarrowing> narrowed;  ///< per collective test with failures, in plan order
  std::vector<TestCoverage> coverage;         ///< per test of the plan, in plan order
  int tests_measured = 0;                     ///< tests whose every unit was measured
  Verdict verdict = Verdict::kIncomplete;
};

/// The verdict in words, the same in every format: "Accepted: all 6 tests measured, 338
/// points, none failed", "Not accepted: 3 of 338 measured points failed (...)", "Incomplete: 1 of
/// 6 tests measured (21 points, none failed); not measured: a, b (partial)".
[[nodiscard]] std::string verdict_text(const AcceptanceCheck& check);

[[nodiscard]] AcceptanceCheck check_acceptance(const Build& build, const AcceptancePlan& plan, AcceptanceExpectation expectation,
                                               const MeasuredSet& measured, EvalContext& context);

/// What the plan's point tests (p2p over every pair of its class, GEMM on every GPU, the
/// collectives) would measure on the build with `degraded` parts, each value times (1 + u), u
/// uniform in [−noise, noise] from `seed`. Collectives see NIC degradations at every node count
/// and the other parts at the whole build only (a smaller build numbers its switches anew);
/// training and reliability points are the expectations with noise. For oracle tests and the
/// notebook: the check must find the parts it was given.
[[nodiscard]] MeasuredSet synthesize_measured(const Build& build, const AcceptancePlan& plan,
                                              const AcceptanceExpectation& expectation,
                                              const std::vector<std::string>& degraded, double noise, std::uint64_t seed,
                                              EvalContext& context);

}  // namespace ctwin::api

namespace ctwin::api {

/// How much of a check a report lists: the verdict, coverage and suspects alone; with the failed
/// points (the default); or with every measured point.
enum class ReportDetail { kSummary, kFailures, kAll };
/// "summary", "failures" or "all"; InputError naming `field` otherwise.
[[nodiscard]] ReportDetail parse_report_detail(const std::string& text, const std::string& field);

/// The report as JSON: {"plan", "cluster", "gpus", "nodes", "expected": [...]} and, after a
/// check, "verdict", "verdict_text", "tests_in_plan", "tests_measured", "coverage", "measured",
/// "failed", "evidence_points", "suspects" and "explanation". Always every point: a program
/// filters for itself.
[[nodiscard]] nlohmann::json acceptance_json(const AcceptanceExpectation& expectation);
[[nodiscard]] nlohmann::json acceptance_json(const AcceptanceCheck& check);

/// A page a person can read and sign: the build, every expected figure with its threshold, and
/// after a check the failures, suspects and a signature block. `figures` are image files to
/// link (the plots a script drew from the JSON), in order.
[[nodiscard]] std::string acceptance_markdown(const AcceptanceExpectation& expectation, const AcceptanceCheck* check,
                                              const std::vector<std::string>& figures = {},
                                              ReportDetail detail = ReportDetail::kFailures);

}  // namespace ctwin::api
