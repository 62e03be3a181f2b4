#pragma once
// `ctwin explain`: the waterfall. A chain of scenarios from one setup to another, one factor
// changed at a time (network, server, split, overlap, precision, data pipeline ...), each link
// replayed as `ctwin run` replays it, so that the gap between two clusters that "differ by 40x"
// is split into what each factor bought. Gains are ratios of tokens/s, and a factor's share of
// the whole is its log-gain over the chain's (the shares add to 1 because the gains multiply).
// Factors that interact give different gains in another order: `reverse` replays the chain
// with the factors applied last to first and reports both (docs/explain.md).

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ctwin/api/eval_context.hpp"
#include "ctwin/replay/step_report.hpp"

namespace ctwin::api {

/// One link of a chain: the scenario fields it changes (dotted paths, as `--set` takes them).
struct ExplainFactor {
  std::string label;
  std::string factor;  ///< the kind of change ("network", "split", ...), for grouping in figures
  std::vector<std::string> set;  ///< "field=value" assignments, as `ctwin run --set` takes them
};

struct ExplainChain {
  std::string name;
  std::string description;
  std::vector<std::string> sources;
  std::string base;  ///< the scenario file the chain starts from
  std::vector<std::string> base_set;  ///< assignments that make the base ("cluster.server.nics.bandwidth=10Gbps")
  std::vector<ExplainFactor> factors;
  std::string file;  ///< where it was read from, for errors
};

/// Reads a chain file; InputError naming the file and field (an unknown key, no factors, a
/// factor that changes nothing).
[[nodiscard]] ExplainChain load_explain_chain(const std::string& path);

struct ExplainLink {
  std::string label;   ///< "base" for the first
  std::string factor;
  replay::StepReport report;
  double gain = 1;        ///< tokens/s over the previous link's
  double cumulative = 1;  ///< tokens/s over the base's
  double share = 0;       ///< log(gain) / log(the chain's whole gain); 0 when the chain gains nothing
};

struct ExplainResult {
  ExplainChain chain;
  std::vector<ExplainLink> links;  ///< base, then each factor in the chain's order
  /// With `reverse`: the factors applied last to first from the same base; links in the
  /// chain's order again (the base first), so that factor i is compared with factor i.
  std::vector<ExplainLink> reversed;
  double total_gain = 1;
};

struct ExplainQuery {
  bool reverse = false;
  std::function<void(std::size_t, std::size_t)> progress;  ///< links done, links in all
};

/// Every link of `chain` replayed; InputError naming the chain file and the factor whose changes
/// make a scenario that cannot run.
[[nodiscard]] ExplainResult evaluate_explain(const ExplainChain& chain, EvalContext& context,
                                             const ExplainQuery& query = {});

[[nodiscard]] nlohmann::json explain_json(const ExplainResult& result);

}  // namespace ctwin::api
