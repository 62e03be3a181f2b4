#pragma once
// --placement on the commands that run a scenario: the scenario's "placement" from the command
// line (docs/cluster.md), as the assignment --set would make of it.

#include <string>

#include <CLI/CLI.hpp>

namespace ctwin::cli {

void add_placement_option(CLI::App& command, std::string& placement);
/// The --set assignment of `placement`: a policy name, or a JSON object as the scenario takes it.
[[nodiscard]] std::string placement_assignment(const std::string& placement);

}  // namespace ctwin::cli
