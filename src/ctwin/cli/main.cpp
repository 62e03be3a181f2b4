// The `ctwin` command: subcommands over the library, one-line errors, exit code 2 on bad input.

#include <iostream>
#include <string>

#include <CLI/CLI.hpp>

#include "ctwin/cli/command_table.hpp"
#include "ctwin/core/error.hpp"

int main(int argc, char** argv) {
  CLI::App app{"ctwin: a performance twin of GPU training clusters"};
  app.set_version_flag("--version", "ctwin 0.1.0");
  app.require_subcommand(1);
  const auto actions = ctwin::cli::register_commands(app);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "ctwin: " << e.what() << " (see ctwin --help)\n";
    return 2;
  }
  try {
    for (const auto& [command, action] : actions) {
      if (command->parsed()) action();
    }
  } catch (const ctwin::InputError& e) {
    std::cerr << "ctwin: " << e.what() << '\n';
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "ctwin: internal error: " << e.what() << '\n';
    return 1;
  }
  return 0;
}
