// JSON and Markdown of `ctwin accept` (acceptance_check.hpp).
#include <cmath>
#include <cstdio>
#include <sstream>

#include "ctwin/api/acceptance_check.hpp"

namespace ctwin::api {
namespace {

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

}  // namespace

nlohmann::json acceptance_json(const AcceptanceExpectation& e) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& r : e.rows) {
    rows.push_back({{"test", r.test}, {"kind", to_string(r.kind)}, {"instance", r.instance}, {"detail", r.detail},
                    {"nodes", r.nodes}, {"size_bytes", r.size_bytes}, {"metric", r.metric}, {"unit", metric_unit(r.metric)},
                    {"expected", r.expected}, {"threshold", r.threshold}, {"tolerance", r.tolerance}});
  }
  return {{"plan", e.plan}, {"cluster", e.cluster}, {"gpus", e.gpus}, {"nodes", e.nodes}, {"expected", rows}};
}

nlohmann::json acceptance_json(const AcceptanceCheck& c) {
  nlohmann::json out = acceptance_json(c.expectation);
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
                                const std::vector<std::string>& figures) {
  std::ostringstream md;
  md << "# Acceptance report: " << e.cluster << ", " << e.gpus << " GPUs (" << e.nodes << " nodes)\n\n";
  md << "Plan: `" << e.plan << "`. Expected values are ctwin's predictions for the healthy build; a test passes when "
        "its measured value is no worse than the threshold.\n\n";
  if (check != nullptr) {
    md << "## Verdict\n\n";
    md << (check->failed == 0 ? "**Accepted**: " : "**Not accepted**: ") << check->points.size() << " measured points, "
       << check->failed << " failed.\n\n";
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
    md << "### Failed points\n\n| test | point | metric | expected | threshold | measured | source |\n"
          "| --- | --- | --- | --- | --- | --- | --- |\n";
    int shown = 0;
    for (const auto& p : check->points) {
      if (p.pass) continue;
      if (++shown > 200) {
        md << "| ... | " << check->failed - 200 << " more in the JSON report | | | | | |\n";
        break;
      }
      md << "| " << p.test << " | " << p.instance << " | " << with_unit(p.metric) << " | " << figure(p.expected) << " | "
         << figure(p.threshold) << " | " << figure(p.measured) << " | " << p.source << " |\n";
    }
    md << "\n";
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
  md << "## Sign-off\n\n| role | name | date | signature |\n| --- | --- | --- | --- |\n| vendor | | | |\n"
        "| operator | | | |\n| acceptance lead | | | |\n";
  return md.str();
}

}  // namespace ctwin::api
