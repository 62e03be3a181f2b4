#include "ctwin/cli/command_table.hpp"

#include <stdexcept>
#include <string>

#include <CLI/CLI.hpp>

namespace ctwin::cli {

const std::vector<CommandEntry>& command_table() {
  static const std::vector<CommandEntry> kCommands{
      {"fabric", add_fabric_command},
      {"traffic", add_traffic_command},
      {"collective", add_collective_command},
      {"bench", add_bench_command},
      {"gemm", add_gemm_command},
      {"calibrate", add_calibrate_command},
      {"validate", add_validate_command},
      {"model", add_model_command},
      {"layer", add_layer_command},
      {"run", add_run_command},
      {"scale", add_scale_command},
      {"goodput", add_goodput_command},
      {"sweep", add_sweep_command},
      {"accept", add_accept_command},
      {"size", add_size_command},
      {"plan", add_plan_command},
      {"explain", add_explain_command},
      {"cluster", add_cluster_command},
  };
  return kCommands;
}

std::map<const CLI::App*, Action> register_commands(CLI::App& app, const std::vector<CommandEntry>& table) {
  std::map<const CLI::App*, Action> actions;
  for (const CommandEntry& entry : table) {
    const std::size_t before = app.get_subcommands({}).size();
    Action action = entry.add(app);
    const auto added = app.get_subcommands({});
    if (added.size() != before + 1 || added[before]->get_name() != entry.name) {
      throw std::logic_error("the command table's entry '" + std::string(entry.name) +
                             "' does not add one subcommand of that name");
    }
    actions[added[before]] = std::move(action);
  }
  return actions;
}

}  // namespace ctwin::cli
