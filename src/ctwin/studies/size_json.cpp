#include "ctwin/api/build_warnings.hpp"
#include "ctwin/api/error_band.hpp"
#include "ctwin/studies/size.hpp"

namespace ctwin::api {
namespace {

nlohmann::json optional_number(const std::optional<double>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

nlohmann::json category_json(const fabric::CategoryTotal& total) {
  return {{"capex", total.capex},
          {"power_kW", total.power.kilowatts()},
          {"unpriced_lines", total.unpriced_lines},
          {"unpowered_lines", total.unpowered_lines}};
}

nlohmann::json bill_json(const fabric::BillOfMaterials& bill) {
  nlohmann::json out;
  out["racks"] = {{"servers", bill.floor.server_racks}, {"network", bill.floor.network_racks}, {"rows", bill.floor.rows},
                  {"servers_per_rack", bill.floor.servers_per_rack}};
  out["switches"] = bill.switch_count;
  out["transceivers"] = bill.transceivers;
  out["cables"] = bill.cables;
  out["links"] = nlohmann::json::array();
  for (const auto& run : bill.links) {
    out["links"].push_back({{"kind", fabric::to_string(run.kind)},
                            {"bandwidth_Gbps", run.bandwidth.gigabits_per_second()},
                            {"links", run.links},
                            {"length_m", run.length_m},
                            {"length_class", run.length_class},
                            {"cable", run.cable},
                            {"nic_transceiver", run.nic_transceiver},
                            {"switch_transceiver", run.switch_transceiver},
                            {"transceivers", run.transceivers}});
  }
  out["lines"] = nlohmann::json::array();
  for (const auto& line : bill.lines) {
    nlohmann::json entry{{"role", line.role},
                         {"category", fabric::to_string(line.category)},
                         {"part", line.part},
                         {"count", line.count},
                         {"unit_price", optional_number(line.unit_price)},
                         {"unit_power_W", line.unit_power ? nlohmann::json(line.unit_power->watts()) : nlohmann::json(nullptr)},
                         {"price", optional_number(line.price())},
                         {"power_kW", line.power() ? nlohmann::json(line.power()->kilowatts()) : nlohmann::json(nullptr)}};
    if (line.in_server) entry["in_server"] = true;
    out["lines"].push_back(std::move(entry));
  }
  out["capex"] = {{"servers", category_json(bill.servers)},
                  {"switches", category_json(bill.switches)},
                  {"optics_and_cables", category_json(bill.optics)},
                  {"total", bill.capex()},
                  {"fully_priced", bill.fully_priced()}};
  out["power_kW"] = {{"total", bill.power().kilowatts()}, {"fully_powered", bill.fully_powered()}};
  return out;
}

}  // namespace

nlohmann::json size_json(const SizeResult& result) {
  const analysis::ErrorBands bands = load_bundled_error_bands();
  nlohmann::json out;
  out["cluster"] = result.cluster;
  out["gpus"] = result.gpus;
  out["currency"] = result.currency;
  out["catalog"] = result.catalog_files;
  out["network"] = std::string(network::name(result.network));
  if (result.flow_sample != replay::FlowSample::kFull) out["flow_sample"] = replay::flow_sample_name(result.flow_sample);
  out["tie_tolerance"] = result.tie_tolerance;
  if (result.ecmp_seeds > 1) out["ecmp_seeds"] = result.ecmp_seeds;
  if (result.pue) out["pue"] = *result.pue;
  out["axes"] = nlohmann::json::array();
  for (const auto& axis : result.axes) out["axes"].push_back({{"field", axis.path}, {"values", axis.texts}});
  out["options"] = nlohmann::json::array();
  for (const auto& option : result.options) {
    nlohmann::json entry;
    for (std::size_t a = 0; a < result.axes.size(); ++a) entry[result.axes[a].path] = option.values[a];
    if (!option.invalid.empty()) {
      entry["invalid"] = option.invalid;
      out["options"].push_back(std::move(entry));
      continue;
    }
    const auto& s = option.summary;
    entry["nodes"] = s.nodes;
    entry["tiers"] = s.tiers;
    entry["switches_per_tier"] = nlohmann::json::object();
    for (const auto& tier : s.switch_tiers) entry["switches_per_tier"][tier.tier] = tier.switches;
    entry["bisection_GBps"] = s.bisection.gigabytes_per_second();
    entry["bill"] = bill_json(option.bill);
    entry["all_reduce_busbw_GBps"] = optional_number(option.all_reduce_busbw_GBps);
    entry["alltoall_busbw_GBps"] = optional_number(option.alltoall_busbw_GBps);
    entry["alltoall_gpus"] = option.alltoall_gpus;
    entry["workloads"] = nlohmann::json::array();
    for (const auto& workload : option.workloads) {
      const analysis::ErrorBand band = analysis::band_for(bands, workload.error_band);
      nlohmann::json w{{"scenario", workload.scenario}, {"model", workload.model}, {"points", nlohmann::json::array()},
                       {"error_band", error_band_class_json(band)}};
      for (const auto& p : workload.points) {
        nlohmann::json point{{"gpus", p.gpus}, {"global_batch", p.global_batch}};
        if (!p.invalid.empty()) {
          point["invalid"] = p.invalid;
        } else {
          point.update(replay::to_json(p, kSizePointFigures));
          point["linearity"] = p.linearity;
          point["error_band"] = error_band_intervals_json(band, p);
        }
        w["points"].push_back(std::move(point));
      }
      entry["workloads"].push_back(std::move(w));
    }
    if (!option.tokens_per_s_by_seed.empty()) {
      entry["tokens_per_s_by_seed"] = option.tokens_per_s_by_seed;
      entry["tokens_per_s_mean"] = option.ranked_tokens_per_s();
      entry["hash_spread"] = option.hash_spread();
    }
    if (option.tie_group >= 0) entry["tie_group"] = option.tie_group;
    entry["pareto"] = option.pareto;
    entry["cost_per_pflops"] = optional_number(option.cost_per_pflops);
    entry["costs_no_more_than"] = option.costs_no_more_than;
    entry["gflops_per_watt"] = optional_number(option.gflops_per_watt);
    if (option.facility_power_kW) entry["facility_power_kW"] = *option.facility_power_kW;
    entry["warnings"] = build_warnings_json(option.warnings);
    out["options"].push_back(std::move(entry));
  }
  return out;
}

}  // namespace ctwin::api
