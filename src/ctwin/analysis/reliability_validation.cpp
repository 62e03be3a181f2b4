#include "ctwin/analysis/reliability_validation.hpp"

#include <cmath>

#include <nlohmann/json.hpp>

#include "ctwin/core/error.hpp"
#include "ctwin/core/json_reader.hpp"
#include "ctwin/fabric/fabric.hpp"
#include "ctwin/fabric/summary.hpp"

namespace ctwin::analysis {

std::vector<ReliabilityCase> load_reliability_cases(const std::filesystem::path& path) {
  const nlohmann::json document = load_json_file(path);
  const std::string source = path.string();
  if (!document.is_object()) throw InputError(source, "", "expected a JSON object");
  JsonObjectReader r(document, source, "");
  (void)r.optional("notes");
  const nlohmann::json& list = r.required("cases");
  if (!list.is_array() || list.empty()) r.fail("cases", "expected a non-empty array");
  std::vector<ReliabilityCase> cases;
  for (std::size_t i = 0; i < list.size(); ++i) {
    JsonObjectReader c(list[i], source, "/cases/" + std::to_string(i));
    ReliabilityCase k;
    k.name = c.string("name");
    k.fit = c.choice("role", {"fit", "held_out"}) == "fit";
    k.topology = c.string("topology");
    k.gpus = static_cast<int>(c.integer("gpus", 1, 1'000'000));
    k.days = c.number("days", 1e-3, 1e5);
    k.group = c.choice("group", {"gpu", "host", "network", "software", "node", "all"});
    k.count = c.number("count", 0, 1e9);
    k.measured = c.string("measured");
    JsonObjectReader s = c.object("source");
    k.source_title = s.string("title");
    k.source_url = s.string("url");
    k.source_date = s.string("date");
    k.source_where = s.string("where");
    s.finish();
    c.finish();
    cases.push_back(std::move(k));
  }
  r.finish();
  return cases;
}

bool in_group(const ComponentRate& component, const std::string& group) {
  if (group == "all") return true;
  if (group == "node") return component.takes != FailureScope::kJob;
  return component.group == group;
}

std::vector<CasePrediction> predict_cases(const ReliabilityModel& model, const std::vector<ReliabilityCase>& cases,
                                          const std::filesystem::path& repo_root) {
  std::vector<CasePrediction> out;
  for (const auto& c : cases) {
    fabric::ClusterSpec spec = fabric::load_cluster(repo_root / c.topology);
    const fabric::Fabric built(spec, c.gpus);
    CasePrediction p;
    p.c = c;
    p.counts = count_components(fabric::summarize(built), spec);
    const double hours = c.days * 24;
    for (const auto& s : failure_sources(model, p.counts)) {
      if (in_group(*s.component, c.group)) p.predicted += s.rate_per_hour * hours;
    }
    p.error = c.count > 0 ? p.predicted / c.count - 1 : 0;
    out.push_back(std::move(p));
  }
  return out;
}

double fit_gpu_rate(const std::vector<ReliabilityCase>& cases) {
  double failures = 0, gpu_hours = 0;
  for (const auto& c : cases) {
    if (!c.fit || c.group != "gpu") continue;
    failures += c.count;
    gpu_hours += c.gpus * c.days * 24;
  }
  return gpu_hours > 0 ? failures / gpu_hours : 0;
}

}  // namespace ctwin::analysis
