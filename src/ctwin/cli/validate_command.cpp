// ctwin validate: the twin against measured nccl-tests logs. For every setup of the manifest
// (validation/nccl/setups.json) the same collective, sizes and type are predicted on the
// bundled topology that models the hardware, and the busbw error is reported per setup and,
// for the acceptance groups, as a median over sizes at or above 1 MiB and below.

#include <cstdio>
#include <iostream>
#include <map>
#include <memory>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "ctwin/calibration/nccl_comparison.hpp"
#include "ctwin/calibration/nccl_setups.hpp"
#include "ctwin/cli/commands.hpp"
#include "ctwin/cli/fabric_options.hpp"
#include "ctwin/cli/output.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/fabric/cluster_spec.hpp"

namespace ctwin::cli {
namespace {

struct ValidateOptions {
  std::string setups = "validation/nccl/setups.json";
  std::string role = "all";
  std::vector<std::string> only;
  std::string network = "flow";
  std::string format = "table";
  bool rows = false;
};

struct SetupResult {
  const calibration::NcclSetup* setup = nullptr;
  std::string skipped;  ///< why it was not predicted; empty when it was
  calibration::LogComparison comparison;
  calibration::ErrorSummary large;
  calibration::ErrorSummary small;
};

// The acceptance groups of the issue: single-node sweeps per GPU, multi-node all_reduce per GPU.
std::string group_of(const calibration::NcclSetup& setup) {
  std::string topology = setup.topology.value_or("");
  const auto slash = topology.find_last_of('/');
  if (slash != std::string::npos) topology = topology.substr(slash + 1);
  if (topology.ends_with(".json")) topology.resize(topology.size() - 5);
  return topology + (setup.nodes == 1 ? ", 1 node" : ", multi-node");
}

bool selected(const calibration::NcclSetup& setup, const ValidateOptions& options) {
  if (options.role != "all" && setup.role != options.role) return false;
  if (options.only.empty()) return true;
  for (const std::string& text : options.only) {
    if (setup.id.find(text) != std::string::npos) return true;
  }
  return false;
}

SetupResult validate_setup(const calibration::NcclSetup& setup, const ValidateOptions& options,
                           std::map<std::pair<std::string, int>, std::unique_ptr<fabric::Fabric>>& fabrics) {
  SetupResult result;
  result.setup = &setup;
  if (!setup.topology) {
    result.skipped = "no bundled topology models this hardware";
    return result;
  }
  auto& built = fabrics[{*setup.topology, setup.ranks}];
  if (!built) {
    built = std::make_unique<fabric::Fabric>(fabric::load_cluster(resolve_data_path(*setup.topology)), setup.ranks);
  }
  if (built->gpus_per_node() < setup.gpus_per_node && setup.nodes > 1) {
    result.skipped = "the topology's nodes are smaller than the measured ones";
    return result;
  }
  const calibration::NcclLog log = calibration::read_nccl_log(setup.log, setup.op);
  collectives::CollectiveQuery query;
  query.algorithm = calibration::forced_algorithm(setup);
  query.protocol = calibration::forced_protocol(setup);
  query.network = options.network;
  result.comparison = calibration::compare_with_log(log, setup.op, *built, query);
  std::vector<double> large;
  std::vector<double> small;
  for (const auto& row : result.comparison.rows) (calibration::is_large(row.size) ? large : small).push_back(row.error);
  result.large = calibration::summarize(large);
  result.small = calibration::summarize(small);
  return result;
}

std::string percent(const calibration::ErrorSummary& summary) {
  return summary.count == 0 ? "-" : fixed(summary.median_abs_error * 100, 1) + "%";
}

std::string signed_percent(double error) { return (error >= 0 ? "+" : "") + fixed(error * 100, 1) + "%"; }

void print_table(const std::vector<SetupResult>& results, const ValidateOptions& options, std::ostream& out) {
  out << "# ctwin validate: predicted vs measured nccl-tests busbw, network " << options.network
      << "; error = predicted / measured - 1 (out-of-place)\n";
  Table table({"setup", "role", "ranks", "rows", "med|err| >=1MiB", "med|err| <1MiB", "at largest size: measured",
               "predicted", "error", "algo/proto"});
  for (const auto& result : results) {
    const auto& setup = *result.setup;
    if (!result.skipped.empty()) {
      table.add_row({setup.id, setup.role, std::to_string(setup.ranks), "-", "skipped: " + result.skipped, "", "", "", "",
                     ""});
      continue;
    }
    const auto& last = result.comparison.rows.back();
    table.add_row({setup.id, setup.role, std::to_string(setup.ranks), std::to_string(result.comparison.rows.size()),
                   percent(result.large), percent(result.small), fixed(last.measured_busbw_GBps, 1) + " GB/s",
                   fixed(last.predicted_busbw_GBps, 1) + " GB/s", signed_percent(last.error),
                   std::string(collectives::name(last.algorithm)) + "/" + std::string(collectives::name(last.protocol))});
    if (options.rows) {
      for (const auto& row : result.comparison.rows) {
        table.add_row({"  " + std::to_string(row.size.count()) + " B", "", "", "", "", "",
                       fixed(row.measured_busbw_GBps, 2) + " GB/s", fixed(row.predicted_busbw_GBps, 2) + " GB/s",
                       signed_percent(row.error),
                       std::string(collectives::name(row.algorithm)) + "/" + std::string(collectives::name(row.protocol))});
      }
    }
  }
  table.print(out, Format::kTable);

  // Medians over every row of a group, pooled across its setups.
  std::map<std::string, std::pair<std::vector<double>, std::vector<double>>> groups;
  for (const auto& result : results) {
    if (!result.skipped.empty()) continue;
    auto& [large, small] = groups[group_of(*result.setup) + " (" + result.setup->role + ")"];
    for (const auto& row : result.comparison.rows) (calibration::is_large(row.size) ? large : small).push_back(row.error);
  }
  out << "\n# by group: median |busbw error| over every row of the group's setups\n";
  Table summary({"group", "rows >=1MiB", "median", "max", "rows <1MiB", "median", "max"});
  for (const auto& [group, errors] : groups) {
    const auto large = calibration::summarize(errors.first);
    const auto small = calibration::summarize(errors.second);
    summary.add_row({group, std::to_string(large.count), percent(large),
                     large.count ? fixed(large.max_abs_error * 100, 1) + "%" : "-", std::to_string(small.count),
                     percent(small), small.count ? fixed(small.max_abs_error * 100, 1) + "%" : "-"});
  }
  summary.print(out, Format::kTable);
}

void print_json(const std::vector<SetupResult>& results, const ValidateOptions& options, std::ostream& out) {
  nlohmann::json setups = nlohmann::json::array();
  for (const auto& result : results) {
    nlohmann::json entry{{"id", result.setup->id}, {"role", result.setup->role}, {"ranks", result.setup->ranks},
                         {"op", collectives::name(result.setup->op)}, {"group", group_of(*result.setup)}};
    if (!result.skipped.empty()) {
      entry["skipped"] = result.skipped;
    } else {
      entry["median_abs_error_large"] = result.large.median_abs_error;
      entry["median_abs_error_small"] = result.small.median_abs_error;
      nlohmann::json rows = nlohmann::json::array();
      for (const auto& row : result.comparison.rows) {
        rows.push_back({{"size_bytes", row.size.count()},
                        {"measured_time_us", row.measured_time.seconds() * 1e6},
                        {"predicted_time_us", row.predicted_time.seconds() * 1e6},
                        {"measured_busbw_GBps", row.measured_busbw_GBps},
                        {"predicted_busbw_GBps", row.predicted_busbw_GBps},
                        {"error", row.error},
                        {"algo", collectives::name(row.algorithm)},
                        {"protocol", collectives::name(row.protocol)}});
      }
      entry["rows"] = rows;
    }
    setups.push_back(entry);
  }
  out << nlohmann::json{{"network", options.network}, {"setups", setups}}.dump(2) << '\n';
}

void print_csv(const std::vector<SetupResult>& results, std::ostream& out) {
  Table table({"setup", "role", "group", "ranks", "size_bytes", "measured_busbw_GBps", "predicted_busbw_GBps", "error",
               "algo", "protocol"});
  for (const auto& result : results) {
    if (!result.skipped.empty()) continue;
    for (const auto& row : result.comparison.rows) {
      table.add_row({result.setup->id, result.setup->role, group_of(*result.setup), std::to_string(result.setup->ranks),
                     std::to_string(row.size.count()), fixed(row.measured_busbw_GBps, 3),
                     fixed(row.predicted_busbw_GBps, 3), fixed(row.error, 4), std::string(collectives::name(row.algorithm)),
                     std::string(collectives::name(row.protocol))});
    }
  }
  table.print(out, Format::kCsv);
}

}  // namespace

Action add_validate_command(CLI::App& app) {
  auto* command = app.add_subcommand("validate", "Compare predicted and measured nccl-tests busbw for every logged setup");
  auto options = std::make_shared<ValidateOptions>();
  command->add_option("--setups", options->setups, "manifest of measured logs")->capture_default_str();
  command->add_option("--role", options->role, "check (tests the defaults), underperforming, or all")
      ->capture_default_str();
  command->add_option("--only", options->only, "only setups whose id contains this text (repeatable)")->take_all();
  command->add_option("--network", options->network, "analytical or flow")->capture_default_str();
  command->add_flag("--rows", options->rows, "print every size, not only the per-setup summary");
  command->add_option("--format", options->format, "table, json or csv (csv: one line per size)")->capture_default_str();
  return [options] {
    const Format format = parse_format(options->format);
    if (options->role != "all" && options->role != "check" && options->role != "underperforming") {
      throw InputError("--role", "", "unknown value '" + options->role + "' (expected check, underperforming or all)");
    }
    const auto setups = calibration::read_nccl_setups(resolve_data_path(options->setups));
    std::map<std::pair<std::string, int>, std::unique_ptr<fabric::Fabric>> fabrics;
    std::vector<SetupResult> results;
    for (const auto& setup : setups) {
      if (selected(setup, *options)) results.push_back(validate_setup(setup, *options, fabrics));
    }
    if (results.empty()) throw InputError("--only", "", "no setup of " + options->setups + " matches");
    if (format == Format::kJson) {
      print_json(results, *options, std::cout);
    } else if (format == Format::kCsv) {
      print_csv(results, std::cout);
    } else {
      print_table(results, *options, std::cout);
    }
  };
}

}  // namespace ctwin::cli
