#include "ctwin/acceptance/acceptance_coverage.hpp"

#include <map>
#include <set>

#include "ctwin/acceptance/acceptance_check.hpp"
#include "ctwin/acceptance/acceptance_p2p.hpp"

namespace ctwin::api {
namespace {

// "nodes=16 size=1024" -> 16; nullopt when the instance names no node count.
std::optional<std::int64_t> coverage_nodes_of(const std::string& instance) {
  const std::size_t at = instance.find("nodes=");
  if (at == std::string::npos) return std::nullopt;
  try {
    return std::stoll(instance.substr(at + 6));
  } catch (...) {
    return std::nullopt;
  }
}

// The units of one test, each with whether a measured point covers it.
struct CoverageUnits {
  std::string unit;
  std::vector<std::string> labels;
  std::vector<bool> covered;
};

CoverageUnits units_of(const AcceptanceTest& test, const AcceptanceExpectation& expectation, const fabric::Fabric& fabric,
                       const std::vector<const CheckedPoint*>& points) {
  CoverageUnits out;
  switch (test.kind) {
    case AcceptanceKind::kP2p: {
      out.unit = "pair";
      std::set<fabric::GpuId> senders;
      for (const auto* p : points) {
        if (const auto pair = parse_pair_label(p->instance)) senders.insert(pair->src);
      }
      for (const auto& pair : class_pairs(fabric, test.path)) {
        out.labels.push_back(pair_label(pair));
        out.covered.push_back(senders.count(pair.src) > 0);
      }
      break;
    }
    case AcceptanceKind::kGemm: {
      out.unit = "GPU";
      std::set<std::string> measured;
      for (const auto* p : points) measured.insert(p->instance);
      for (int gpu = 0; gpu < fabric.gpus(); ++gpu) {
        out.labels.push_back("gpu=" + std::to_string(gpu));
        out.covered.push_back(measured.count(out.labels.back()) > 0);
      }
      break;
    }
    case AcceptanceKind::kCollective: {
      out.unit = "node count";
      std::set<std::int64_t> measured;
      for (const auto* p : points) {
        if (const auto nodes = coverage_nodes_of(p->instance)) measured.insert(*nodes);
      }
      std::set<std::int64_t> seen;
      for (const auto nodes : test.nodes) {
        const std::int64_t n = test_nodes(nodes, expectation.nodes);
        if (!seen.insert(n).second) continue;
        out.labels.push_back("nodes=" + std::to_string(n));
        out.covered.push_back(measured.count(n) > 0);
      }
      break;
    }
    case AcceptanceKind::kTraining:
    case AcceptanceKind::kReliability: {
      out.unit = "point";
      std::set<std::string> measured;
      for (const auto* p : points) measured.insert(p->instance);
      for (const auto& row : expectation.rows) {
        if (row.test != test.id) continue;
        out.labels.push_back(row.instance);
        out.covered.push_back(measured.count(row.instance) > 0);
      }
      break;
    }
  }
  return out;
}

}  // namespace

const char* to_string(CoverageStatus status) {
  switch (status) {
    case CoverageStatus::kMeasured: return "measured";
    case CoverageStatus::kPartial: return "partial";
    case CoverageStatus::kMissing: return "missing";
    case CoverageStatus::kOutsidePlan: return "outside_plan";
  }
  return "?";
}

const char* to_string(Verdict verdict) {
  switch (verdict) {
    case Verdict::kAccepted: return "accepted";
    case Verdict::kNotAccepted: return "not_accepted";
    case Verdict::kIncomplete: return "incomplete";
  }
  return "?";
}

std::vector<TestCoverage> test_coverage(const AcceptancePlan& plan, const AcceptanceExpectation& expectation,
                                        const fabric::Fabric& fabric, const std::vector<CheckedPoint>& points,
                                        const std::vector<MeasuredValue>& outside) {
  std::map<std::string, std::vector<const CheckedPoint*>> by_test;
  for (const auto& p : points) by_test[p.test].push_back(&p);
  std::map<std::string, int> outside_by_test;
  for (const auto& m : outside) ++outside_by_test[m.test];
  std::vector<TestCoverage> out;
  for (const auto& test : plan.tests) {
    const auto& measured = by_test[test.id];
    const CoverageUnits units = units_of(test, expectation, fabric, measured);
    TestCoverage row;
    row.test = test.id;
    row.kind = test.kind;
    row.unit = units.unit;
    row.units = static_cast<std::int64_t>(units.labels.size());
    row.points = static_cast<int>(measured.size());
    row.outside_plan = outside_by_test[test.id];
    for (std::size_t i = 0; i < units.labels.size(); ++i) {
      if (units.covered[i]) {
        ++row.covered;
      } else if (row.missing.size() < kMissingListed) {
        row.missing.push_back(units.labels[i]);
      }
    }
    if (row.units > 0 && row.covered == row.units) {
      row.status = CoverageStatus::kMeasured;
    } else if (row.covered > 0) {
      row.status = CoverageStatus::kPartial;
    } else {
      row.status = row.outside_plan > 0 ? CoverageStatus::kOutsidePlan : CoverageStatus::kMissing;
    }
    out.push_back(std::move(row));
  }
  return out;
}

}  // namespace ctwin::api
