#include "ctwin/studies/explain.hpp"

#include <cmath>

#include "ctwin/api/data_dir.hpp"
#include "ctwin/api/evaluate.hpp"
#include "ctwin/api/scenario.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/core/json_reader.hpp"
#include "ctwin/core/overrides.hpp"
#include "ctwin/replay/step_figures.hpp"

namespace ctwin::api {
namespace {

constexpr std::size_t kMaxFactors = 32;

// The scenario of each link: the base with the first `count` factors of `order` applied.
Scenario link_scenario(const Scenario& base, const ExplainChain& chain, const std::vector<std::size_t>& order,
                       std::size_t count) {
  std::vector<std::string> assignments;
  for (std::size_t k = 0; k < count; ++k) {
    const auto& set = chain.factors[order[k]].set;
    assignments.insert(assignments.end(), set.begin(), set.end());
  }
  return base.with_assignments(assignments);
}

replay::StepReport replay_report(const Scenario& scenario, EvalContext& context) {
  StepQuery query;
  query.report_only = true;
  return evaluate(scenario, context, query).step.report;
}

replay::StepReport replay_link(const Scenario& scenario, const ExplainChain& chain, std::size_t factor,
                               EvalContext& context) {
  try {
    return replay_report(scenario, context);
  } catch (const InputError& error) {
    // The base was replayed first, so what fails now is what this factor changed.
    throw InputError(chain.file, "/factors/" + std::to_string(factor) + "/set",
                     "the chain cannot run past \"" + chain.factors[factor].label + "\": " + error.what());
  }
}

std::vector<ExplainLink> links_of(const std::vector<replay::StepReport>& reports, const ExplainChain& chain,
                                  const std::vector<std::size_t>& order) {
  std::vector<ExplainLink> links;
  const double base_tokens = reports.front().tokens_per_s;
  for (std::size_t i = 0; i < reports.size(); ++i) {
    ExplainLink link;
    link.label = i == 0 ? "base" : chain.factors[order[i - 1]].label;
    link.factor = i == 0 ? "" : chain.factors[order[i - 1]].factor;
    link.report = reports[i];
    link.gain = i == 0 ? 1 : link.report.tokens_per_s / reports[i - 1].tokens_per_s;
    link.cumulative = link.report.tokens_per_s / base_tokens;
    links.push_back(std::move(link));
  }
  const double whole = std::log(links.back().cumulative);
  for (ExplainLink& link : links) link.share = std::abs(whole) > 1e-12 ? std::log(link.gain) / whole : 0;
  return links;
}

nlohmann::json link_json(const ExplainLink& link) {
  const replay::StepReport& r = link.report;
  using replay::Figure;
  nlohmann::json out = replay::to_json(replay::figures_of(r), {Figure::kStepTime, Figure::kTokensPerS, Figure::kMfu,
                                                               Figure::kCommRatio, Figure::kExposedIo, Figure::kBubble,
                                                               Figure::kFitsMemory});
  out.update({{"label", link.label},
              {"factor", link.factor},
              {"gain", link.gain},
              {"cumulative_gain", link.cumulative},
              {"share", link.share}});
  return out;
}

}  // namespace

ExplainChain load_explain_chain(const std::string& path) {
  const auto file = resolve_data_path(path);
  const nlohmann::json document = load_json_file(file);
  ExplainChain chain;
  chain.file = path;
  JsonObjectReader reader(document, path, "");
  chain.name = reader.string("name");
  chain.description = reader.string_or("description", "");
  chain.sources = reader.string_list_or_empty("sources");
  chain.base = reader.string("base");
  chain.base_set = reader.string_list_or_empty("set");
  for (const std::string& assignment : chain.base_set) (void)parse_override(assignment, path + " /set");
  const nlohmann::json& factors = reader.required("factors");
  if (!factors.is_array() || factors.empty() || factors.size() > kMaxFactors) {
    reader.fail("factors", "must be a list of 1 to " + std::to_string(kMaxFactors) + " factors");
  }
  for (std::size_t i = 0; i < factors.size(); ++i) {
    const std::string pointer = "/factors/" + std::to_string(i);
    if (!factors[i].is_object()) throw InputError(path, pointer, "must be an object");
    JsonObjectReader f(factors[i], path, pointer);
    ExplainFactor factor;
    factor.label = f.string("label");
    factor.factor = f.string_or("factor", "");
    const std::vector<std::string> set = f.string_list("set");
    if (set.empty()) f.fail("set", "must change at least one field (\"parallel.tp=8\")");
    for (const std::string& assignment : set) (void)parse_override(assignment, path + " " + pointer + "/set");
    factor.set = set;
    f.finish();
    chain.factors.push_back(std::move(factor));
  }
  reader.finish();
  return chain;
}

ExplainResult evaluate_explain(const ExplainChain& chain, EvalContext& context, const ExplainQuery& query) {
  ExplainResult result;
  result.chain = chain;
  const Scenario base = Scenario::load(resolve_named(chain.base, DataKind::kScenario, chain.file + " /base").string())
                            .with_assignments(chain.base_set);
  const std::size_t n = chain.factors.size();
  const std::size_t total = (query.reverse ? 2 * n : n) + 1;
  std::size_t done = 0;
  const auto tick = [&] {
    if (query.progress) query.progress(++done, total);
  };
  std::vector<std::size_t> forward(n);
  for (std::size_t i = 0; i < n; ++i) forward[i] = i;
  std::vector<replay::StepReport> reports{replay_report(base, context)};  // the base's errors name its file
  tick();
  for (std::size_t i = 0; i < n; ++i) {
    reports.push_back(replay_link(link_scenario(base, chain, forward, i + 1), chain, i, context));
    tick();
  }
  result.links = links_of(reports, chain, forward);
  result.total_gain = result.links.back().cumulative;
  if (query.reverse) {
    const std::vector<std::size_t> backward(forward.rbegin(), forward.rend());
    std::vector<replay::StepReport> back{reports.front()};
    for (std::size_t i = 0; i < n; ++i) {
      back.push_back(replay_link(link_scenario(base, chain, backward, i + 1), chain, backward[i], context));
      tick();
    }
    // Listed in the chain's order, so that factor i sits beside factor i.
    std::vector<ExplainLink> in_reverse = links_of(back, chain, backward);
    result.reversed.push_back(in_reverse.front());
    for (std::size_t i = n; i >= 1; --i) result.reversed.push_back(in_reverse[i]);
  }
  return result;
}

nlohmann::json explain_json(const ExplainResult& result) {
  nlohmann::json out{{"name", result.chain.name},
                     {"description", result.chain.description},
                     {"sources", result.chain.sources},
                     {"base", result.chain.base},
                     {"set", result.chain.base_set},
                     {"total_gain", result.total_gain},
                     {"links", nlohmann::json::array()}};
  for (const ExplainLink& link : result.links) out["links"].push_back(link_json(link));
  if (!result.reversed.empty()) {
    out["reversed"] = nlohmann::json::array();
    for (const ExplainLink& link : result.reversed) out["reversed"].push_back(link_json(link));
  }
  return out;
}

}  // namespace ctwin::api
