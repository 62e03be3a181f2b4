#pragma once
// Each subcommand registers its options on the CLI11 app and returns the action to run once
// parsing succeeded. Actions print to stdout and throw InputError on bad input; main() turns
// that into a one-line message and exit code 2.

#include <functional>

namespace CLI {
class App;
}

namespace ctwin::cli {

using Action = std::function<void()>;

Action add_fabric_command(CLI::App& app);
Action add_traffic_command(CLI::App& app);
Action add_collective_command(CLI::App& app);
Action add_bench_command(CLI::App& app);
Action add_gemm_command(CLI::App& app);
Action add_calibrate_command(CLI::App& app);
Action add_validate_command(CLI::App& app);
Action add_model_command(CLI::App& app);
Action add_layer_command(CLI::App& app);
Action add_run_command(CLI::App& app);
Action add_scale_command(CLI::App& app);
Action add_goodput_command(CLI::App& app);
Action add_sweep_command(CLI::App& app);
Action add_size_command(CLI::App& app);
Action add_plan_command(CLI::App& app);
Action add_accept_command(CLI::App& app);
Action add_explain_command(CLI::App& app);
Action add_cluster_command(CLI::App& app);

}  // namespace ctwin::cli
