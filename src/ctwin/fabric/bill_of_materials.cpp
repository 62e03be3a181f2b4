#include "ctwin/fabric/bill_of_materials.hpp"

#include <limits>

#include "ctwin/core/error.hpp"
#include "ctwin/core/int_math.hpp"

namespace ctwin::fabric {
namespace {

std::string catalog_rate(Bandwidth b) {
  const double g = b.gigabits_per_second();
  return std::to_string(static_cast<long long>(g + 0.5)) + "Gbps";
}

const Part& require(const PartsCatalog& catalog, PartCategory kind, const std::string& name, const std::string& used_by,
                    const std::string& origin) {
  const Part* part = catalog.find(kind, name);
  if (part == nullptr) {
    throw InputError(origin, "", std::string(to_string(kind)) + " '" + name + "' (" + used_by +
                                     ") is not in the parts catalog: add it with --parts FILE");
  }
  return *part;
}

// The copper cable that reaches, else none: copper is cheaper and draws nothing at the ends.
const Part* shortest_covering(const PartsCatalog& catalog, PartCategory kind, double length_m,
                              const std::string& medium = "") {
  const Part* best = nullptr;
  for (const Part* part : catalog.of_kind(kind)) {
    if (!medium.empty() && part->medium != medium) continue;
    if (part->reach_m + 1e-9 < length_m) continue;
    if (best == nullptr || part->reach_m < best->reach_m) best = part;
  }
  return best;
}

const Part& transceiver_for(const PartsCatalog& catalog, Bandwidth rate, int ports, double length_m,
                            const std::string& end, const std::string& origin) {
  const Part* best = nullptr;
  for (const Part* part : catalog.of_kind(PartCategory::kTransceiver)) {
    if (part->ports != ports || part->reach_m + 1e-9 < length_m) continue;
    if (std::abs(part->bandwidth.bytes_per_second() - rate.bytes_per_second()) > 1) continue;
    if (best == nullptr || part->reach_m < best->reach_m) best = part;
  }
  if (best == nullptr) {
    throw InputError(origin, "", "no transceiver in the parts catalog carries " + catalog_rate(rate) + " on " +
                                     std::to_string(ports) + "-port modules over " +
                                     std::to_string(static_cast<long long>(length_m + 0.5)) + " m (" + end +
                                     "): add one with --parts FILE");
  }
  return *best;
}

BomLine line(std::string role, CostCategory category, const Part& part, long long count, bool in_server = false) {
  BomLine result{std::move(role), category, part.name, "", count, in_server, std::nullopt, std::nullopt};
  if (!in_server) {
    if (part.price) {
      result.unit_price = part.price->amount;
      result.currency = part.price->currency;
    }
    result.unit_power = part.planning_power();
  }
  return result;
}

const char* link_role(LinkKind kind) {
  switch (kind) {
    case LinkKind::kAccess: return "access";
    case LinkKind::kLeafSpine: return "leaf-spine";
    case LinkKind::kLocal: return "local";
    case LinkKind::kGlobal: return "global";
    case LinkKind::kBorder: return "border";
    case LinkKind::kDci: return "dci";
    default: return "spine-core";
  }
}

}  // namespace

std::optional<double> BomLine::price() const {
  if (in_server) return 0.0;
  if (!unit_price) return std::nullopt;
  return *unit_price * static_cast<double>(count);
}

std::optional<Power> BomLine::power() const {
  if (in_server) return Power{};
  if (!unit_power) return std::nullopt;
  return *unit_power * static_cast<double>(count);
}

BillOfMaterials bill_of_materials(const ClusterSpec& spec, const Topology& topology, const FabricSummary& summary,
                                  const PartsCatalog& catalog, const FloorPlan& floor, const std::string& origin) {
  BillOfMaterials bill;
  bill.floor = lay_out(spec, topology, floor);

  const Part& server = require(catalog, PartCategory::kServer, spec.server.name, "server.name", origin);
  bill.lines.push_back(line("servers", CostCategory::kServers, server, summary.nodes));
  const Part& nic = require(catalog, PartCategory::kNic, spec.server.nics.model, "server.nics.model", origin);
  bill.lines.push_back(line("NICs", CostCategory::kServers, nic,
                            static_cast<long long>(summary.nodes) * spec.server.nics.count, server.includes_nics));

  if (spec.storage) {
    // Storage servers and node drives count with the servers, so that the categories (and the
    // size table's columns) stay those of a build without storage.
    for (const StorageTierSpec& tier : spec.storage->tiers) {
      if (tier.part.empty() || tier.part_units == 0) continue;
      const Part& part = require(catalog, PartCategory::kStorage, tier.part, "storage.tiers (" + tier.name + ").part", origin);
      const long long count = tier.shared() ? tier.part_units : static_cast<long long>(summary.nodes) * tier.part_units;
      bill.lines.push_back(line(std::string(tier.shared() ? "storage servers (" : "storage drives (") + tier.name + ")",
                                CostCategory::kServers, part, count));
    }
  }

  const Part& sw = require(catalog, PartCategory::kSwitch, spec.fabric.switch_spec.model, "fabric.switch.model", origin);
  for (const SwitchTier& tier : summary.switch_tiers) {
    bill.lines.push_back(line(tier.tier + " switches", CostCategory::kSwitches, sw, tier.switches));
    bill.switch_count += tier.switches;
  }

  const int per_cage = spec.fabric.switch_spec.ports_per_transceiver;
  for (const CableGroup& group : summary.cables) {
    if (!is_scale_out(group.kind)) continue;
    LinkRun run;
    run.kind = group.kind;
    run.bandwidth = group.bandwidth;
    run.links = group.cables;
    run.length_m = bill.floor.length_m(group.kind);
    run.length_class = bill.floor.length_class(group.kind);
    const std::string role = link_role(group.kind);
    if (const Part* copper = shortest_covering(catalog, PartCategory::kCable, run.length_m, "copper")) {
      run.cable = copper->name;
      bill.lines.push_back(line(role + " cables", CostCategory::kOptics, *copper, run.links));
    } else {
      const Part* fiber = shortest_covering(catalog, PartCategory::kCable, run.length_m, "fiber");
      if (fiber == nullptr) {
        throw InputError(origin, "", "no cable in the parts catalog reaches " +
                                         std::to_string(static_cast<long long>(run.length_m + 0.5)) + " m (" + role +
                                         " links): add one with --parts FILE");
      }
      run.cable = fiber->name;
      bill.lines.push_back(line(role + " fibers", CostCategory::kOptics, *fiber, run.links));
      // A NIC port takes one single-port module; switch ports share cages of per_cage ports. Breakout
      // cables (a dual plane's 200G port cables) share a switch port: the cage's module runs at the
      // port's rate and splitter fibers fan it out, as NVIDIA's twin-port modules to 200G NICs do.
      const long long switch_ends = group.kind == LinkKind::kAccess ? run.links : 2 * run.links;
      const int share = group.links_per_switch_port;
      const Bandwidth port_rate = share > 1 ? group.bandwidth * static_cast<double>(share) : group.bandwidth;
      const Part& at_switch = transceiver_for(catalog, port_rate, per_cage, run.length_m, role + " switch end", origin);
      run.switch_transceiver = at_switch.name;
      const long long switch_modules = ceil_div(switch_ends, static_cast<long long>(per_cage) * share);
      bill.lines.push_back(line(role + " transceivers (switch end)", CostCategory::kOptics, at_switch, switch_modules));
      run.transceivers = switch_modules;
      if (group.kind == LinkKind::kAccess) {
        const Part& at_nic = transceiver_for(catalog, run.bandwidth, 1, run.length_m, "access NIC end", origin);
        run.nic_transceiver = at_nic.name;
        bill.lines.push_back(line("access transceivers (NIC end)", CostCategory::kOptics, at_nic, run.links));
        run.transceivers += run.links;
      }
    }
    bill.transceivers += run.transceivers;
    bill.cables += run.links;
    bill.links.push_back(std::move(run));
  }

  for (const BomLine& entry : bill.lines) {
    CategoryTotal& total = entry.category == CostCategory::kServers    ? bill.servers
                           : entry.category == CostCategory::kSwitches ? bill.switches
                                                                       : bill.optics;
    if (const auto price = entry.price()) {
      total.capex += *price;
      if (!entry.currency.empty()) bill.currency = entry.currency;
    } else {
      ++total.unpriced_lines;
    }
    if (const auto power = entry.power()) {
      total.power = total.power + *power;
    } else {
      ++total.unpowered_lines;
    }
  }
  return bill;
}

const char* to_string(CostCategory category) {
  switch (category) {
    case CostCategory::kServers: return "servers";
    case CostCategory::kSwitches: return "switches";
    case CostCategory::kOptics: return "optics and cables";
  }
  return "?";
}

}  // namespace ctwin::fabric
