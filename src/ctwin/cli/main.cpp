// The `ctwin` command: subcommands over the library, one-line errors, exit code 2 on bad input.

#include <iostream>
#include <map>
#include <string>

#include <CLI/CLI.hpp>

#include "ctwin/cli/commands.hpp"
#include "ctwin/core/error.hpp"

int main(int argc, char** argv) {
  CLI::App app{"ctwin: a performance twin of GPU training clusters"};
  app.set_version_flag("--version", "ctwin 0.1.0");
  app.require_subcommand(1);
  std::map<const CLI::App*, ctwin::cli::Action> actions;
  auto add = [&](ctwin::cli::Action (*adder)(CLI::App&)) {
    const std::size_t before = app.get_subcommands({}).size();
    ctwin::cli::Action action = adder(app);
    actions[app.get_subcommands({})[before]] = std::move(action);
  };
  add(ctwin::cli::add_fabric_command);
  add(ctwin::cli::add_traffic_command);
  add(ctwin::cli::add_collective_command);
  add(ctwin::cli::add_bench_command);
  add(ctwin::cli::add_gemm_command);
  add(ctwin::cli::add_calibrate_command);
  add(ctwin::cli::add_validate_command);
  add(ctwin::cli::add_model_command);
  add(ctwin::cli::add_layer_command);
  add(ctwin::cli::add_run_command);
  add(ctwin::cli::add_scale_command);
  add(ctwin::cli::add_goodput_command);
  add(ctwin::cli::add_sweep_command);
  add(ctwin::cli::add_accept_command);
  add(ctwin::cli::add_size_command);
  add(ctwin::cli::add_plan_command);
  add(ctwin::cli::add_explain_command);
  add(ctwin::cli::add_cluster_command);

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
