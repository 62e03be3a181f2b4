#include "ctwin/api/build_warnings.hpp"

#include <algorithm>
#include <cstdio>

#include "ctwin/api/data_dir.hpp"
#include "ctwin/api/report_json.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/core/json_reader.hpp"
#include "ctwin/core/overrides.hpp"
#include "ctwin/fabric/topology.hpp"

namespace ctwin::api {
namespace {

std::string gbytes(Bandwidth b) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.0f GB/s", b.gigabytes_per_second());
  return buffer;
}

}  // namespace

std::vector<fabric::BuildWarning> build_warnings(const nlohmann::json& document, const fabric::ClusterSpec& spec,
                                                 std::int64_t gpus) {
  std::vector<fabric::BuildWarning> warnings = fabric::ignored_fields(document);
  const std::int64_t per_node = spec.server.gpus;
  const int nodes = static_cast<int>((gpus + per_node - 1) / per_node);
  for (auto& warning : fabric::check_build(spec, *fabric::plan_topology(spec, nodes))) warnings.push_back(std::move(warning));
  return warnings;
}

std::vector<fabric::BuildWarning> build_warnings(const Build& build) {
  nlohmann::json document = load_json_file(resolve_named(build.cluster, DataKind::kTopology));
  apply_changes(document, build.changes, build.changes_origin);
  return build_warnings(document, load_build(build), build.gpus);
}

std::vector<fabric::BuildWarning> scenario_build_warnings(const replay::Scenario& scenario, std::int64_t gpus) {
  // The key is the cluster's document, dumped on one line, then what else sets the build apart
  // (a calibration) after a newline: the document is the first line.
  const std::string& key = scenario.cluster_key;
  return build_warnings(nlohmann::json::parse(key.substr(0, key.find('\n'))), scenario.cluster, gpus);
}

std::vector<fabric::BuildWarning> step_warnings(const replay::Scenario& scenario) {
  std::vector<fabric::BuildWarning> warnings = scenario_build_warnings(scenario, scenario.gpus);
  const fabric::ServerSpec& server = scenario.cluster.server;
  const int tp = scenario.split.tp;
  if (tp > server.gpus) {
    const Bandwidth nvlink = server.nvlink ? server.nvlink->link.bandwidth : server.pcie.bandwidth;
    const Bandwidth nic = server.nics.link.bandwidth * (static_cast<double>(server.nics.count) / server.gpus);
    warnings.push_back({"tp_across_nodes",
                        "tp " + std::to_string(tp) + " spans " + std::to_string((tp + server.gpus - 1) / server.gpus) +
                            " nodes of " + std::to_string(server.gpus) +
                            " GPUs: every tensor-parallel collective crosses the scale-out fabric at " + gbytes(nic) +
                            " per GPU instead of " + (server.nvlink ? "NVLink's " : "PCIe's ") + gbytes(nvlink),
                        "keep tp <= " + std::to_string(server.gpus) + " and raise pp or cp instead (parallel.tp)"});
  }
  // Storage reads over the compute fabric share its links with the step's collectives on flow
  // (replay/storage_reads.hpp); simgrid still times them by the closed form (docs/io.md).
  if (scenario.data && scenario.network == network::ModelKind::kSimgrid &&
      scenario.cluster.storage->find(scenario.data->tier)->attach == fabric::StorageAttach::kComputeFabric) {
    warnings.push_back({"storage_reads_not_shared",
                        "storage tier '" + scenario.data->tier +
                            "' attaches to the compute fabric, but simgrid times its reads alone (the analytical "
                            "closed form), not sharing links with the step's collectives: exposed io is a lower bound",
                        "attach the tier to a storage network, or read exposed io as a lower bound (data.tier)"});
  }
  return warnings;
}

nlohmann::json fabric_report_json(const Build& build, EvalContext& context) {
  const fabric::FabricSummary summary = evaluate_fabric(build, context);
  nlohmann::json out = fabric_summary_json(summary);
  // Only for a topology with storage, so that the other builds' reports keep their bytes.
  if (const fabric::ClusterSpec spec = load_build(build); spec.storage) out["storage"] = storage_json(spec, summary.nodes);
  if (const auto warnings = build_warnings(build); !warnings.empty()) out["warnings"] = build_warnings_json(warnings);
  return out;
}

nlohmann::json build_warnings_json(const std::vector<fabric::BuildWarning>& warnings) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& warning : warnings) {
    out.push_back({{"check", warning.check}, {"message", warning.message}, {"fix", warning.fix}});
  }
  return out;
}

std::vector<fabric::BuildWarning> read_build_warnings_json(const nlohmann::json& list, const std::string& source,
                                                          const std::string& at) {
  if (!list.is_array()) throw InputError(source, at, "expected an array of {check, message, fix}");
  std::vector<fabric::BuildWarning> warnings;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const nlohmann::json& w = list[i];
    const std::string here = at + "/" + std::to_string(i);
    const auto text = [&](const char* key) {
      if (!w.is_object() || !w.contains(key) || !w[key].is_string()) {
        throw InputError(source, here + "/" + key, "expected a string");
      }
      return w[key].get<std::string>();
    };
    warnings.push_back({text("check"), text("message"), text("fix")});
  }
  return warnings;
}

}  // namespace ctwin::api
