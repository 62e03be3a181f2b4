#pragma once
// Goodput in the waterfall (docs/explain.md): a chain may carry `goodput` settings, and a factor
// may change them ("goodput.interruption_every=null"), so that failures and checkpoints are
// a factor like the network. Each link's goodput is `ctwin goodput`'s Monte Carlo
// (analysis::run_goodput_study) for that link's scenario and step time, with its checkpoint tier
// chosen as `ctwin goodput --storage` chooses it (api::checkpoint_tier): one checkpoint model.
//
// "An interruption every N steps" (seed 000's unstable cluster: one every 100 iterations) or
// "every 10min" is a failure model of its own: one job-wide cause at rate 1 / (N · step time)
// (or 1 / the time), restarted on the same nodes, with the detection and launch times of the
// reliability file.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ctwin/replay/checkpoint_save.hpp"
#include "ctwin/replay/scenario.hpp"

namespace ctwin::api {

struct ExplainGoodputSettings {
  double days = 2;
  std::int64_t runs = 100;
  std::uint64_t seed = 1;
  std::string reliability = "models/reliability/gpu-cluster.json";
  std::string storage = "auto";   ///< a tier of models/reliability/storage.json, cluster:NAME or auto
  std::string interval = "auto";  ///< training time between checkpoints ("30min"), or auto
  std::string spares = "5%";
  std::string interruption_every;  ///< "100 steps" or "10min"; empty: the reliability file's rates
};

/// The chain's "goodput" object (`document`, at `pointer` of `source`) with `changes`
/// ("goodput.KEY=VALUE" assignments, the prefix already checked) applied; InputError naming
/// `source` and `origin` (the field the changes came from) for an unknown key or a bad value.
[[nodiscard]] ExplainGoodputSettings read_explain_goodput(const nlohmann::json& document, const std::string& source,
                                                          const std::vector<std::string>& changes,
                                                          const std::string& origin);

/// Whether an assignment changes the goodput settings rather than the scenario.
[[nodiscard]] bool is_goodput_assignment(const std::string& assignment);

struct ExplainGoodput {
  double ettr = 0;     ///< mean over the runs: training kept / wall-clock time
  double goodput = 0;  ///< mean over the runs: ETTR weighted by the replicas running
  double mtbf_h = 0;   ///< of the job, 1/Λ (infinite never: a link without failures reports 0)
  double interruptions_per_day = 0;
  double checkpoint_blocking_s = 0;
  double checkpoint_load_s = 0;
  double interval_s = 0;
  std::string tier;
};

/// The goodput of one link: `scenario` (resolved) stepping in `step_time_s` at `tokens_per_s`.
/// A scenario with a "checkpoint" saves as it says (studies/goodput_checkpoint.hpp), `checkpoint`
/// being the link's step report's.
[[nodiscard]] ExplainGoodput explain_goodput(const ExplainGoodputSettings& settings, const replay::Scenario& scenario,
                                             double step_time_s, double tokens_per_s,
                                             const std::optional<replay::CheckpointTiming>& checkpoint = std::nullopt);

[[nodiscard]] nlohmann::json explain_goodput_settings_json(const ExplainGoodputSettings& settings);
[[nodiscard]] nlohmann::json explain_goodput_json(const ExplainGoodput& goodput);

}  // namespace ctwin::api
