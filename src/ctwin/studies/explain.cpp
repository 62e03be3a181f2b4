#include "ctwin/studies/explain.hpp"

#include <algorithm>
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

// The assignments of each link: the base's, then those of the first `count` factors of `order`.
std::vector<std::string> link_assignments(const ExplainChain& chain, const std::vector<std::size_t>& order,
                                          std::size_t count) {
  std::vector<std::string> assignments = chain.base_set;
  for (std::size_t k = 0; k < count; ++k) {
    const auto& set = chain.factors[order[k]].set;
    assignments.insert(assignments.end(), set.begin(), set.end());
  }
  return assignments;
}

struct SplitAssignments {
  std::vector<std::string> scenario;
  std::vector<std::string> goodput;
};

SplitAssignments split_explain_assignments(const std::vector<std::string>& assignments) {
  SplitAssignments out;
  for (const std::string& a : assignments) (is_goodput_assignment(a) ? out.goodput : out.scenario).push_back(a);
  return out;
}

StepResult replay_step(const Scenario& scenario, EvalContext& context) {
  StepQuery query;
  query.report_only = true;
  return evaluate(scenario, context, query);
}

// Weak scaling from one node (or the smallest whole model replica above it): the same job with
// each data-parallel replica keeping its share of the batch. None when that size cannot run it.
std::optional<double> explain_linearity(const Scenario& link, const StepResult& full, EvalContext& context,
                                        std::int64_t& from_gpus) {
  const replay::Scenario& s = full.scenario;
  const std::int64_t replica = s.split.tp * s.split.pp * s.split.cp;
  const std::int64_t node = std::max<std::int64_t>(1, s.cluster.server.gpus);
  from_gpus = (std::max(node, replica) + replica - 1) / replica * replica;
  if (from_gpus >= s.gpus || full.step.report.dp < 1) return std::nullopt;
  const std::int64_t per_replica = s.split.global_batch / full.step.report.dp;
  const std::int64_t batch = per_replica * (from_gpus / replica);
  try {
    const Scenario small = link.with_assignments({"gpus=" + std::to_string(from_gpus), "parallel.dp=auto",
                                                  "training.global_batch=" + std::to_string(batch)});
    const double small_tokens = replay_step(small, context).step.report.tokens_per_s;
    const double ratio = static_cast<double>(s.gpus) / static_cast<double>(from_gpus);
    return full.step.report.tokens_per_s / (small_tokens * ratio);
  } catch (const InputError&) {
    return std::nullopt;  // the split does not fit one node's worth of replicas: no linearity to report
  }
}

ExplainLink run_explain_link(const Scenario& base_file, const ExplainChain& chain, std::vector<std::string> assignments,
                             EvalContext& context) {
  const SplitAssignments split = split_explain_assignments(assignments);
  const Scenario scenario = base_file.with_assignments(split.scenario);
  const StepResult full = replay_step(scenario, context);
  ExplainLink link;
  link.set = std::move(assignments);
  link.report = full.step.report;
  const auto& b = link.report.breakdown;
  link.gpu_utilisation = (b.compute_s + b.optimizer_s) / link.report.step_time_s;
  link.linearity = explain_linearity(scenario, full, context, link.linearity_gpus);
  link.throughput = link.report.tokens_per_s;
  if (chain.goodput) {
    const ExplainGoodputSettings settings = read_explain_goodput(*chain.goodput, chain.file, split.goodput, "/goodput");
    try {
      link.goodput = explain_goodput(settings, full.scenario, link.report.step_time_s, link.report.tokens_per_s,
                                     link.report.checkpoint);
    } catch (const InputError& error) {
      // Named by the chain's settings: "goodput" errors by their field, the Monte Carlo's by its flag.
      if (error.source() == "goodput") throw InputError(chain.file, "/goodput" + error.pointer(), error.message());
      throw InputError(chain.file, "/goodput", error.what());
    }
    link.throughput *= link.goodput->goodput;
    // A job that never trains has no gain to compare (log 0): say so rather than print infinities.
    if (!(link.throughput > 0)) {
      throw InputError(chain.file, "/goodput",
                       "the job trains nothing (goodput 0): interruptions come faster than it restarts (" +
                           std::to_string(link.goodput->interruptions_per_day) + " a day)");
    }
  }
  return link;
}

ExplainLink replay_link(const Scenario& base_file, const ExplainChain& chain, const std::vector<std::size_t>& order,
                        std::size_t count, EvalContext& context) {
  const std::vector<std::string> assignments = link_assignments(chain, order, count);
  if (count == 0) return run_explain_link(base_file, chain, assignments, context);  // the base's errors name its file
  const std::size_t factor = order[count - 1];
  try {
    return run_explain_link(base_file, chain, assignments, context);
  } catch (const InputError& error) {
    // The base was replayed first, so what fails now is what this factor changed.
    throw InputError(chain.file, "/factors/" + std::to_string(factor) + "/set",
                     "the chain cannot run past \"" + chain.factors[factor].label + "\": " + error.what());
  }
}

void finish_links(std::vector<ExplainLink>& links, const ExplainChain& chain, const std::vector<std::size_t>& order) {
  const double base = links.front().throughput;
  for (std::size_t i = 0; i < links.size(); ++i) {
    ExplainLink& link = links[i];
    link.label = i == 0 ? "base" : chain.factors[order[i - 1]].label;
    link.factor = i == 0 ? "" : chain.factors[order[i - 1]].factor;
    link.gain = i == 0 ? 1 : link.throughput / links[i - 1].throughput;
    link.cumulative = link.throughput / base;
  }
  const double whole = std::log(links.back().cumulative);
  for (ExplainLink& link : links) link.share = std::abs(whole) > 1e-12 ? std::log(link.gain) / whole : 0;
}

nlohmann::json link_json(const ExplainLink& link) {
  const replay::StepReport& r = link.report;
  using replay::Figure;
  nlohmann::json out = replay::to_json(replay::figures_of(r), {Figure::kStepTime, Figure::kTokensPerS, Figure::kMfu,
                                                               Figure::kCommRatio, Figure::kExposedIo, Figure::kBubble,
                                                               Figure::kFitsMemory});
  out.update({{"label", link.label},
              {"factor", link.factor},
              {"gpu_utilisation", link.gpu_utilisation},
              {"linearity", nullptr},
              {"linearity_from_gpus", link.linearity_gpus},
              {"throughput", link.throughput},
              {"gain", link.gain},
              {"cumulative_gain", link.cumulative},
              {"share", link.share},
              {"set", link.set}});
  if (link.linearity) out["linearity"] = *link.linearity;
  if (link.goodput) out["goodput"] = explain_goodput_json(*link.goodput);
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
  if (const nlohmann::json* goodput = reader.optional("goodput"); goodput != nullptr && !goodput->is_null()) {
    chain.goodput = *goodput;
  }
  const nlohmann::json& factors = reader.required("factors");
  if (!factors.is_array() || factors.empty() || factors.size() > kMaxFactors) {
    reader.fail("factors", "must be a list of 1 to " + std::to_string(kMaxFactors) + " factors");
  }
  std::vector<std::string> goodput_so_far = split_explain_assignments(chain.base_set).goodput;
  const auto check_goodput = [&](const std::string& origin) {
    if (goodput_so_far.empty() && !chain.goodput) return;
    if (!chain.goodput) throw InputError(path, origin, "changes goodput settings, but the chain has no \"goodput\" object");
    (void)read_explain_goodput(*chain.goodput, path, goodput_so_far, origin);
  };
  check_goodput(goodput_so_far.empty() ? "/goodput" : "/set");
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
    const std::vector<std::string> goodput = split_explain_assignments(set).goodput;
    goodput_so_far.insert(goodput_so_far.end(), goodput.begin(), goodput.end());
    if (!goodput.empty()) check_goodput(pointer + "/set");
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
  const Scenario base = Scenario::load(resolve_named(chain.base, DataKind::kScenario, chain.file + " /base").string());
  const std::size_t n = chain.factors.size();
  const std::size_t total = (query.reverse ? 2 * n : n) + 1;
  std::size_t done = 0;
  const auto tick = [&] {
    if (query.progress) query.progress(++done, total);
  };
  std::vector<std::size_t> forward(n);
  for (std::size_t i = 0; i < n; ++i) forward[i] = i;
  for (std::size_t i = 0; i <= n; ++i) {
    result.links.push_back(replay_link(base, chain, forward, i, context));
    tick();
  }
  finish_links(result.links, chain, forward);
  result.total_gain = result.links.back().cumulative;
  if (query.reverse) {
    const std::vector<std::size_t> backward(forward.rbegin(), forward.rend());
    std::vector<ExplainLink> back{result.links.front()};
    for (std::size_t i = 1; i <= n; ++i) {
      back.push_back(replay_link(base, chain, backward, i, context));
      tick();
    }
    finish_links(back, chain, backward);
    // Listed in the chain's order, so that factor i sits beside factor i.
    result.reversed.push_back(back.front());
    for (std::size_t i = n; i >= 1; --i) result.reversed.push_back(back[i]);
  }
  return result;
}

nlohmann::json explain_json(const ExplainResult& result) {
  nlohmann::json out{{"name", result.chain.name},
                     {"description", result.chain.description},
                     {"sources", result.chain.sources},
                     {"base", result.chain.base},
                     {"set", result.chain.base_set},
                     {"measure", result.chain.goodput ? "goodput_tokens_per_s" : "tokens_per_s"},
                     {"total_gain", result.total_gain},
                     {"links", nlohmann::json::array()}};
  if (result.chain.goodput) out["goodput"] = *result.chain.goodput;
  for (const ExplainLink& link : result.links) out["links"].push_back(link_json(link));
  if (!result.reversed.empty()) {
    out["reversed"] = nlohmann::json::array();
    for (const ExplainLink& link : result.reversed) out["reversed"].push_back(link_json(link));
  }
  return out;
}

}  // namespace ctwin::api
