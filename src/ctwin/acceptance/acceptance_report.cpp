// JSON and Markdown of `ctwin accept` (acceptance_check.hpp).
#include <cmath>
#include <cstdio>
#include <sstream>

#include "ctwin/acceptance/acceptance_check.hpp"
#include "ctwin/core/error.hpp"

namespace ctwin::api {
namespace {

constexpr const char* kSignOff =
    "## Sign-off\n\n| role | name | date | signature |\n| --- | --- | --- | --- |\n| vendor | | | |\n"
    "| operator | | | |\n| acceptance lead | | | |\n";

// "partial: 1 of 3 node counts", "missing", "outside the plan's sizes (4 points)".
std::string coverage_words(const TestCoverage& c) {
  switch (c.status) {
    case CoverageStatus::kMeasured: return "measured";
    case CoverageStatus::kPartial:
      return "partial: " + std::to_string(c.covered) + " of " + std::to_string(c.units) + " " + c.unit + "s";
    case CoverageStatus::kMissing: return "missing";
    case CoverageStatus::kOutsidePlan:
      return "outside the plan's sizes (" + std::to_string(c.outside_plan) + " points)";
  }
  return "?";
}

// The units a coverage row lacks, the first few by name.
std::string missing_words(const TestCoverage& c) {
  std::string out;
  for (const auto& m : c.missing) out += (out.empty() ? "" : ", ") + m;
  const std::int64_t more = c.units - c.covered - static_cast<std::int64_t>(c.missing.size());
  if (more > 0) out += " and " + std::to_string(more) + " more";
  return out;
}

nlohmann::json suspect_json(const Suspect& s) {
  return {{"part", s.part}, {"term", s.term}, {"share", s.share}, {"score", s.score}, {"explained", s.explained},
          {"failures_crossed", s.failures_crossed}};
}

std::string figure(double value) {
  char text[32];
  if (value != 0 && (std::abs(value) < 0.01 || std::abs(value) >= 1e6)) {
    std::snprintf(text, sizeof text, "%.3e", value);
  } else {
    std::snprintf(text, sizeof text, "%.4g", value);
  }
  return text;
}

std::string with_unit(const std::string& metric) {
  const std::string unit = metric_unit(metric);
  return unit.empty() ? metric : metric + " (" + unit + ")";
}

// The failed points (at most 200), or with kAll every measured point.
void write_points(std::ostringstream& md, const AcceptanceCheck& check, ReportDetail detail) {
  const bool all = detail == ReportDetail::kAll;
  if (!all && check.failed == 0) {
    md << "### Failed points\n\nNone of the " << check.points.size() << " measured points failed.\n\n";
    return;
  }
  md << (all ? "### Measured points\n\n" : "### Failed points\n\n")
     << "| test | point | metric | expected | threshold | measured | result | source |\n"
        "| --- | --- | --- | --- | --- | --- | --- | --- |\n";
  int shown = 0;
  for (const auto& p : check.points) {
    if (p.pass && !all) continue;
    if (!all && ++shown > 200) {
      md << "| ... | " << check.failed - 200 << " more: `--show all` or the JSON report | | | | | | |\n";
      break;
    }
    md << "| " << p.test << " | " << p.instance << " | " << with_unit(p.metric) << " | " << figure(p.expected) << " | "
       << figure(p.threshold) << " | " << figure(p.measured) << " | " << (p.pass ? "pass" : "FAIL") << " | " << p.source
       << " |\n";
  }
  md << "\n";
}

}  // namespace

ReportDetail parse_report_detail(const std::string& text, const std::string& field) {
  if (text == "summary") return ReportDetail::kSummary;
  if (text == "failures") return ReportDetail::kFailures;
  if (text == "all") return ReportDetail::kAll;
  throw InputError(field, "", "'" + text + "': expected summary, failures or all");
}

std::string verdict_text(const AcceptanceCheck& c) {
  const std::string tests = std::to_string(c.coverage.size());
  const std::string points = std::to_string(c.points.size());
  switch (c.verdict) {
    case Verdict::kAccepted:
      return "Accepted: all " + tests + " tests measured, " + points + " points, none failed";
    case Verdict::kNotAccepted: {
      std::string out = "Not accepted: " + std::to_string(c.failed) + " of " + points + " measured points failed";
      if (c.tests_measured < static_cast<int>(c.coverage.size())) {
        out += "; " + std::to_string(c.tests_measured) + " of " + tests + " tests measured";
      }
      return out;
    }
    case Verdict::kIncomplete: {
      std::string out = "Incomplete: " + std::to_string(c.tests_measured) + " of " + tests + " tests measured (" + points +
                        " points, none failed); not measured:";
      bool first = true;
      for (const auto& t : c.coverage) {
        if (t.status == CoverageStatus::kMeasured) continue;
        out += (first ? " " : ", ") + t.test + " (" + coverage_words(t) + ")";
        first = false;
      }
      return out;
    }
  }
  return "?";
}

nlohmann::json acceptance_json(const AcceptanceExpectation& e) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& r : e.rows) {
    rows.push_back({{"test", r.test}, {"kind", to_string(r.kind)}, {"instance", r.instance}, {"detail", r.detail},
                    {"nodes", r.nodes}, {"size_bytes", r.size_bytes}, {"metric", r.metric}, {"unit", metric_unit(r.metric)},
                    {"expected", r.expected}, {"threshold", r.threshold}, {"tolerance", r.tolerance}});
    if (r.band) rows.back()["error_band"] = analysis::interval_json(*r.band);
  }
  return {{"plan", e.plan}, {"cluster", e.cluster}, {"gpus", e.gpus}, {"nodes", e.nodes}, {"expected", rows}};
}

nlohmann::json acceptance_json(const AcceptanceCheck& c) {
  nlohmann::json out = acceptance_json(c.expectation);
  out["verdict"] = to_string(c.verdict);
  out["verdict_text"] = verdict_text(c);
  out["tests_in_plan"] = c.coverage.size();
  out["tests_measured"] = c.tests_measured;
  out["coverage"] = nlohmann::json::array();
  for (const auto& t : c.coverage) {
    out["coverage"].push_back({{"test", t.test}, {"kind", to_string(t.kind)}, {"status", to_string(t.status)},
                               {"unit", t.unit}, {"units", t.units}, {"covered", t.covered}, {"points", t.points},
                               {"outside_plan", t.outside_plan}, {"missing", t.missing},
                               {"missing_count", t.units - t.covered}});
  }
  nlohmann::json points = nlohmann::json::array();
  for (const auto& p : c.points) {
    points.push_back({{"test", p.test}, {"instance", p.instance}, {"metric", p.metric}, {"unit", metric_unit(p.metric)},
                      {"expected", p.expected}, {"threshold", p.threshold}, {"measured", p.measured}, {"pass", p.pass},
                      {"source", p.source}});
  }
  out["measured"] = points;
  out["failed"] = c.failed;
  out["outside_plan"] = c.outside_plan;
  out["evidence_points"] = c.evidence_points;
  out["suspects"] = nlohmann::json::array();
  for (const auto& s : c.suspects) out["suspects"].push_back(suspect_json(s));
  out["explanation"] = nlohmann::json::array();
  for (const auto& s : c.explanation) out["explanation"].push_back(suspect_json(s));
  out["narrowed"] = nlohmann::json::array();
  for (const auto& n : c.narrowed) {
    out["narrowed"].push_back({{"test", n.test}, {"passed_nodes", n.passed_nodes}, {"failed_nodes", n.failed_nodes},
                               {"first_node", n.passed_nodes}, {"last_node", n.failed_nodes - 1},
                               {"next_nodes", n.next_nodes}, {"prefix", n.prefix}});
  }
  return out;
}

std::string acceptance_markdown(const AcceptanceExpectation& e, const AcceptanceCheck* check,
                                const std::vector<std::string>& figures, ReportDetail detail) {
  std::ostringstream md;
  md << "# Acceptance report: " << e.cluster << ", " << e.gpus << " GPUs (" << e.nodes << " nodes)\n\n";
  md << "Plan: `" << e.plan << "`. Expected values are ctwin's predictions for the healthy build; a test passes when "
        "its measured value is no worse than the threshold.\n\n";
  if (check != nullptr) {
    md << "## Verdict\n\n";
    const std::string verdict = verdict_text(*check);
    const std::size_t colon = verdict.find(':');
    md << "**" << verdict.substr(0, colon) << "**" << verdict.substr(colon) << ".\n\n";
    md << "| test | kind | coverage | measured points | not measured |\n| --- | --- | --- | --- | --- |\n";
    for (const auto& t : check->coverage) {
      md << "| " << t.test << " | " << to_string(t.kind) << " | " << coverage_words(t) << " | " << t.points << " | "
         << missing_words(t) << " |\n";
    }
    md << "\n";
    if (!check->explanation.empty()) {
      md << "Parts that explain the failures (best share of the nominal rate fitted to the measurements):\n\n";
      md << "| part | degradation | explains | failed points crossing it |\n| --- | --- | --- | --- |\n";
      for (const auto& s : check->explanation) {
        md << "| " << s.part << " | `" << s.term << "` | " << figure(100 * s.explained) << " % | " << s.failures_crossed << " |\n";
      }
      md << "\n";
    }
    if (!check->suspects.empty()) {
      md << "Suspects, best first (score: squared log error over " << check->evidence_points << " points):\n\n";
      md << "| rank | part | fitted | score | explains |\n| --- | --- | --- | --- | --- |\n";
      for (std::size_t i = 0; i < check->suspects.size(); ++i) {
        const auto& s = check->suspects[i];
        md << "| " << i + 1 << " | " << s.part << " | `" << s.term << "` | " << figure(s.score) << " | "
           << figure(100 * s.explained) << " % |\n";
      }
      md << "\n";
    }
    if (!check->narrowed.empty()) {
      md << "Collective failures by node count (a collective on N nodes runs on the build's first N):\n\n";
      md << "| test | passed on | failed from | suspect nodes | next measurement |\n| --- | --- | --- | --- | --- |\n";
      for (const auto& n : check->narrowed) {
        md << "| " << n.test << " | " << n.passed_nodes << " nodes | " << n.failed_nodes << " nodes | ";
        if (!n.prefix) {
          md << "none: passes again at more nodes | repeat the failed sizes |\n";
          continue;
        }
        md << n.passed_nodes << ".." << n.failed_nodes - 1 << " | "
           << (n.next_nodes > 0 ? "the same on " + std::to_string(n.next_nodes) + " nodes" : std::string("node ") + std::to_string(n.passed_nodes) + " alone") << " |\n";
      }
      md << "\n";
    }
    if (detail == ReportDetail::kSummary) {
      md << "Measured points and expected values: `--show failures` or `--show all`.\n\n";
      md << kSignOff;
      return md.str();
    }
    write_points(md, *check, detail);
  }
  md << "## Expected values\n\n| test | point | what | metric | expected | pass threshold | tolerance |\n"
        "| --- | --- | --- | --- | --- | --- | --- |\n";
  for (const auto& r : e.rows) {
    md << "| " << r.test << " | " << r.instance << " | " << r.detail << " | " << with_unit(r.metric) << " | "
       << figure(r.expected) << " | " << figure(r.threshold) << " | " << r.tolerance << " |\n";
  }
  md << "\n";
  if (!figures.empty()) {
    md << "## Figures\n\n";
    for (const auto& f : figures) md << "![" << f << "](" << f << ")\n\n";
  }
  md << kSignOff;
  return md.str();
}

}  // namespace ctwin::api
