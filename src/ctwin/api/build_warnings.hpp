#pragma once
// The build checks (fabric/build_checks.hpp) of a build or a training step, for every front
// end: `ctwin fabric`, `run` and `size` print the same warnings, and their JSON carries them.

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ctwin/api/evaluate.hpp"
#include "ctwin/fabric/build_checks.hpp"
#include "ctwin/fabric/cluster_spec.hpp"
#include "ctwin/replay/scenario.hpp"

namespace ctwin::api {

/// Fields the topology document ignores, then check_build() of the first `gpus` GPUs of `spec`.
[[nodiscard]] std::vector<fabric::BuildWarning> build_warnings(const nlohmann::json& document,
                                                               const fabric::ClusterSpec& spec, std::int64_t gpus);
/// The same for a build as `ctwin fabric` names it.
[[nodiscard]] std::vector<fabric::BuildWarning> build_warnings(const Build& build);

/// The warnings of the build `scenario` runs on, for its first `gpus` GPUs: what every split of
/// it shares (the planner reports them once for all its candidates).
[[nodiscard]] std::vector<fabric::BuildWarning> scenario_build_warnings(const replay::Scenario& scenario,
                                                                        std::int64_t gpus);

/// The build's warnings, then the split's: tensor parallelism wider than a node's NVLink domain.
[[nodiscard]] std::vector<fabric::BuildWarning> step_warnings(const replay::Scenario& scenario);

/// `ctwin fabric --format json`: fabric_summary_json() of the build, with its "warnings" when
/// one applies (so that a sound build's report keeps its bytes). The CLI and Python print it.
[[nodiscard]] nlohmann::json fabric_report_json(const Build& build, EvalContext& context);

/// [{"check", "message", "fix"}].
[[nodiscard]] nlohmann::json build_warnings_json(const std::vector<fabric::BuildWarning>& warnings);

/// build_warnings_json's array read back from a shard (`source`, at the JSON pointer `at`);
/// InputError naming the field when it is not one.
[[nodiscard]] std::vector<fabric::BuildWarning> read_build_warnings_json(const nlohmann::json& list,
                                                                         const std::string& source, const std::string& at);

}  // namespace ctwin::api
