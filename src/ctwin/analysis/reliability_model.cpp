#include "ctwin/analysis/reliability_model.hpp"

#include <algorithm>
#include <array>
#include <utility>

#include <nlohmann/json.hpp>

#include "ctwin/core/error.hpp"
#include "ctwin/core/json_reader.hpp"
#include "ctwin/core/rate_parse.hpp"
#include "ctwin/core/unit_parse.hpp"
#include "ctwin/fabric/summary.hpp"

namespace ctwin::analysis {
namespace {

constexpr std::array<std::pair<CountBasis, const char*>, 12> kBases{{
    {CountBasis::kGpu, "gpu"},
    {CountBasis::kNode, "node"},
    {CountBasis::kNic, "nic"},
    {CountBasis::kCpu, "cpu"},
    {CountBasis::kLeafSwitch, "leaf_switch"},
    {CountBasis::kSpineSwitch, "spine_switch"},
    {CountBasis::kCoreSwitch, "core_switch"},
    {CountBasis::kAccessCable, "access_cable"},
    {CountBasis::kFabricCable, "fabric_cable"},
    {CountBasis::kAccessTransceiver, "access_transceiver"},
    {CountBasis::kFabricTransceiver, "fabric_transceiver"},
    {CountBasis::kJob, "job"},
}};

constexpr std::array<std::pair<FailureScope, const char*>, 3> kScopes{{
    {FailureScope::kJob, "job"},
    {FailureScope::kNode, "node"},
    {FailureScope::kLeaf, "leaf"},
}};

/// A duration field in hours, named in the error when its text is bad.
double hours_field(JsonObjectReader& reader, std::string_view key) {
  const std::string text = reader.string(key);
  try {
    return parse_hours(text);
  } catch (const UnitError& e) {
    reader.fail(key, e.what());
  }
}

ComponentRate read_component(JsonObjectReader r) {
  ComponentRate c;
  c.name = r.string("name");
  c.group = r.choice("group", {"gpu", "host", "network", "software"});
  std::vector<std::string> bases;
  for (const auto& [basis, name] : kBases) bases.emplace_back(name);
  const std::string per = r.choice("per", bases);
  for (const auto& [basis, name] : kBases) {
    if (per == name) c.per = basis;
  }
  // Either a rate or an MTBF, never both, so a file cannot say two different things.
  const bool has_rate = r.has("rate");
  const bool has_mtbf = r.has("mtbf");
  if (has_rate == has_mtbf) r.fail("rate", "give exactly one of 'rate' (e.g. '1.5e-5/h') and 'mtbf' (e.g. '2000000h')");
  if (has_rate) {
    const std::string text = r.string("rate");
    try {
      c.rate_per_hour = parse_rate_per_hour(text);
    } catch (const UnitError& e) {
      r.fail("rate", e.what());
    }
  } else {
    const double mtbf = hours_field(r, "mtbf");
    if (mtbf <= 0) r.fail("mtbf", "must be positive");
    c.rate_per_hour = 1 / mtbf;
  }
  // More than one failure per unit-hour is no part anyone runs a job on: a unit slip.
  if (c.rate_per_hour > 1) r.fail(has_rate ? "rate" : "mtbf", "more than one failure per unit-hour");
  std::vector<std::string> scopes;
  for (const auto& [scope, name] : kScopes) scopes.emplace_back(name);
  const std::string takes = r.choice("takes", scopes);
  for (const auto& [scope, name] : kScopes) {
    if (takes == name) c.takes = scope;
  }
  if (c.takes != FailureScope::kJob) {
    c.repair_hours = hours_field(r, "repair");
    if (c.repair_hours <= 0) r.fail("repair", "must be positive (the part comes back only after it)");
    if (c.repair_hours > 8766) r.fail("repair", "more than a year");
  } else if (r.has("repair")) {
    r.fail("repair", "a failure that takes only the job has nothing to repair");
  }
  if (c.per == CountBasis::kJob && c.takes != FailureScope::kJob) {
    r.fail("takes", "a per-job fault takes no hardware: use \"takes\": \"job\"");
  }
  c.source = r.string("source");
  c.assumed = r.boolean_or("assumed", false);
  r.finish();
  return c;
}

}  // namespace

ReliabilityModel parse_reliability_model(const nlohmann::json& document, const std::string& source) {
  if (!document.is_object()) throw InputError(source, "", "expected a JSON object");
  JsonObjectReader r(document, source, "");
  ReliabilityModel model;
  model.file = source;
  model.name = r.string("name");
  model.description = r.string_or("description", "");
  (void)r.optional("notes");  // prose for readers: how rates were chosen
  model.detection_hours = hours_field(r, "detection");
  model.launch_hours = hours_field(r, "launch");
  if (model.detection_hours > 168) r.fail("detection", "more than a week");
  if (model.launch_hours > 168) r.fail("launch", "more than a week");
  const nlohmann::json& list = r.required("components");
  if (!list.is_array() || list.empty()) r.fail("components", "expected a non-empty array of component classes");
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string pointer = r.pointer_to("components") + "/" + std::to_string(i);
    if (!list[i].is_object()) throw InputError(source, pointer, "expected an object");
    model.components.push_back(read_component(JsonObjectReader(list[i], source, pointer)));
    for (std::size_t j = 0; j < i; ++j) {
      if (model.components[j].name == model.components[i].name) {
        throw InputError(source, pointer + "/name", "duplicate component '" + model.components[i].name + "'");
      }
    }
  }
  r.finish();
  return model;
}

ReliabilityModel load_reliability_model(const std::filesystem::path& path) {
  return parse_reliability_model(load_json_file(path), path.string());
}

long long ComponentCounts::of(CountBasis basis) const {
  switch (basis) {
    case CountBasis::kGpu: return gpus;
    case CountBasis::kNode: return nodes;
    case CountBasis::kNic: return nics;
    case CountBasis::kCpu: return cpus;
    case CountBasis::kLeafSwitch: return leaf_switches;
    case CountBasis::kSpineSwitch: return spine_switches;
    case CountBasis::kCoreSwitch: return core_switches;
    case CountBasis::kAccessCable: return access_cables;
    case CountBasis::kFabricCable: return fabric_cables;
    case CountBasis::kAccessTransceiver: return access_transceivers;
    case CountBasis::kFabricTransceiver: return fabric_transceivers;
    case CountBasis::kJob: return 1;
  }
  return 0;
}

ComponentCounts count_components(const fabric::FabricSummary& summary, const fabric::ClusterSpec& cluster) {
  ComponentCounts c;
  c.gpus = summary.gpus;
  c.nodes = summary.nodes;
  c.nics = static_cast<long long>(summary.nodes) * cluster.server.nics.count;
  c.cpus = static_cast<long long>(summary.nodes) * cluster.server.cpus;
  for (const auto& tier : summary.switch_tiers) {
    // A dragonfly router cuts off the nodes on it as a leaf does.
    if (tier.tier == "leaf" || tier.tier == "router") c.leaf_switches += tier.switches;
    if (tier.tier == "spine") c.spine_switches += tier.switches;
    if (tier.tier == "core") c.core_switches += tier.switches;
  }
  for (const auto& group : summary.cables) {
    if (group.kind == fabric::LinkKind::kAccess) {
      c.access_cables += group.cables;
      c.access_transceivers += group.transceivers;
    } else if (fabric::is_switch_cable(group.kind)) {
      c.fabric_cables += group.cables;
      c.fabric_transceivers += group.transceivers;
    }
  }
  // A rail-optimized leaf serves one scalable unit's nodes; a top-of-rack leaf the nodes whose
  // NICs it holds.
  if (cluster.fabric.kind == fabric::FabricKind::kRailOptimized) {
    c.nodes_per_leaf = std::max(1, std::min(summary.nodes, cluster.fabric.nodes_per_su));
  } else if (c.leaf_switches > 0 && cluster.server.nics.count > 0) {
    const long long per_leaf = (c.access_cables + c.leaf_switches - 1) / c.leaf_switches;
    c.nodes_per_leaf = static_cast<int>(std::max<long long>(1, (per_leaf + cluster.server.nics.count - 1) / cluster.server.nics.count));
  }
  return c;
}

std::vector<FailureSource> failure_sources(const ReliabilityModel& model, const ComponentCounts& counts) {
  std::vector<FailureSource> out;
  out.reserve(model.components.size());
  for (const auto& component : model.components) {
    FailureSource s;
    s.component = &component;
    s.units = counts.of(component.per);
    s.rate_per_hour = static_cast<double>(s.units) * component.rate_per_hour;
    s.nodes_taken = component.takes == FailureScope::kJob    ? 0
                    : component.takes == FailureScope::kNode ? 1
                                                             : counts.nodes_per_leaf;
    out.push_back(s);
  }
  return out;
}

double total_rate_per_hour(const std::vector<FailureSource>& sources) {
  double total = 0;
  for (const auto& s : sources) total += s.rate_per_hour;
  return total;
}

const char* to_string(CountBasis basis) {
  for (const auto& [b, name] : kBases) {
    if (b == basis) return name;
  }
  return "?";
}

const char* to_string(FailureScope scope) {
  for (const auto& [s, name] : kScopes) {
    if (s == scope) return name;
  }
  return "?";
}

}  // namespace ctwin::analysis
