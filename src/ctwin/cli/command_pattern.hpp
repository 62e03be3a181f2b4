#pragma once
// A command as four parts (docs/extending.md, "Adding a command"): its options are declared on the
// subcommand, turned into a query once parsing succeeded (every flag checked there, so bad input
// fails before any work), evaluated by one call into the library, and printed. A command file fills
// a CommandParts and its add_<thing>_command is `return add_command(app, parts)`.

#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include <CLI/CLI.hpp>

#include "ctwin/cli/commands.hpp"

namespace ctwin::cli {

/// Whether a flag was given at all, for the checks a default value cannot make ("--jobs applies to
/// --training" even when the value given is the default). An Options struct that needs it holds
/// one and its declare attaches the subcommand, which main keeps alive past parsing.
class GivenFlags {
 public:
  void attach(const CLI::App& command) { command_ = &command; }
  [[nodiscard]] bool operator()(const std::string& flag) const { return command_ != nullptr && command_->count(flag) > 0; }

 private:
  const CLI::App* command_ = nullptr;
};

template <class Options, class Query, class Result>
struct CommandParts {
  std::string_view name;
  std::string_view help;
  /// Adds the command's options to its subcommand, bound to `options` (which outlives parsing).
  void (*declare)(CLI::App& command, Options& options);
  /// The query the parsed options ask for; throws InputError on a bad flag.
  Query (*query)(const Options& options);
  /// The one library call (with the command's progress line, if any).
  Result (*evaluate)(const Query& query);
  /// Writes the result: stdout in the chosen format, and any file the options name.
  void (*print)(const Result& result, const Query& query, const Options& options);
};

template <class Options, class Query, class Result>
Action add_command(CLI::App& app, const CommandParts<Options, Query, Result>& parts) {
  auto* command = app.add_subcommand(std::string(parts.name), std::string(parts.help));
  auto options = std::make_shared<Options>();
  parts.declare(*command, *options);
  return [options, parts] {
    const Query query = parts.query(*options);
    parts.print(parts.evaluate(query), query, *options);
  };
}

}  // namespace ctwin::cli
