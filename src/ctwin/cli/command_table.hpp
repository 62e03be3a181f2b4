#pragma once
// The `ctwin` commands as one table (docs/extending.md, "Adding a command"): an entry is a
// command's name and the function in its own file that registers its help and options on the
// subcommand and returns what to run once parsing succeeded. main() registers the table in its
// order, which is `ctwin --help`'s.

#include <map>
#include <string_view>
#include <vector>

#include "ctwin/cli/commands.hpp"

namespace ctwin::cli {

struct CommandEntry {
  std::string_view name;         ///< the subcommand `add` registers (register_commands checks it)
  Action (*add)(CLI::App& app);  ///< adds the subcommand, its help and options; returns its action
};

/// Every command, in `ctwin --help` order.
[[nodiscard]] const std::vector<CommandEntry>& command_table();

/// Adds every entry's subcommand to `app`, in order; each subcommand's action. A std::logic_error
/// when an entry adds no subcommand or one of another name (a wrong table line, not bad input).
[[nodiscard]] std::map<const CLI::App*, Action> register_commands(CLI::App& app,
                                                                  const std::vector<CommandEntry>& table = command_table());

}  // namespace ctwin::cli
