#pragma once
// `ctwin explain`: the waterfall. A chain of scenarios from one setup to another, one factor
// changed at a time (network, server, split, overlap, precision, data pipeline ...), each link
// replayed as `ctwin run` replays it, so that the gap between two clusters that "differ by 40x"
// is split into what each factor bought. Gains are ratios of tokens/s, and a factor's share of
// the whole is its log-gain over the chain's (the shares add to 1 because the gains multiply).
// Factors that interact give different gains in another order: `reverse` replays the chain
// with the factors applied last to first and reports both (docs/explain.md).
//
// Beside the step's figures each link has its GPU utilisation (the share of the step a GPU
// computes), its linearity (weak scaling from one node, or the smallest whole model replica
// above it: tokens/s / (tokens/s there × the size ratio)) and, when the chain has `goodput`
// settings, its goodput (explain_goodput.hpp); the gains are then of goodput tokens/s, so that
// failures and checkpoints are a factor like the others.

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ctwin/api/eval_context.hpp"
#include "ctwin/studies/explain_goodput.hpp"
#include "ctwin/replay/step_report.hpp"

namespace ctwin::api {

/// One link of a chain: the scenario fields it changes (dotted paths, as `--set` takes them).
struct ExplainFactor {
  std::string label;
  std::string factor;  ///< the kind of change ("network", "split", ...), for grouping in figures
  std::vector<std::string> set;  ///< "field=value" assignments, as `ctwin run --set` takes them; "goodput.KEY=..." the goodput settings
};

struct ExplainChain {
  std::string name;
  std::string description;
  std::vector<std::string> sources;
  std::string base;  ///< the scenario file the chain starts from
  std::vector<std::string> base_set;  ///< assignments that make the base ("cluster.server.nics.bandwidth=10Gbps")
  std::vector<ExplainFactor> factors;
  std::optional<nlohmann::json> goodput;  ///< the chain's "goodput" settings (explain_goodput.hpp), as written
  std::string file;  ///< where it was read from, for errors
};

/// Reads a chain file; InputError naming the file and field (an unknown key, no factors, a
/// factor that changes nothing).
[[nodiscard]] ExplainChain load_explain_chain(const std::string& path);

struct ExplainLink {
  std::string label;   ///< "base" for the first
  std::string factor;
  std::vector<std::string> set;  ///< every assignment that makes this link from the base file, in order
  replay::StepReport report;
  double gpu_utilisation = 0;  ///< (compute + optimizer) / step: the share of the step a GPU computes
  std::optional<double> linearity;  ///< none when the split cannot run on linearity_gpus
  std::int64_t linearity_gpus = 0;  ///< the size linearity is measured from
  std::optional<ExplainGoodput> goodput;  ///< chains with goodput settings only
  double throughput = 0;  ///< what the gains compare: tokens/s, times goodput when there is one
  double gain = 1;        ///< throughput over the previous link's
  double cumulative = 1;  ///< throughput over the base's
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
