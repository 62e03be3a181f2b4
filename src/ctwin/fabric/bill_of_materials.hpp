#pragma once
// What a build costs and draws: every server, switch, NIC, transceiver and cable priced and
// powered from the parts catalog. Counts come from the built fabric (FabricSummary), cable
// kinds from the floor layout. Capex and power are sums of count x unit figure over the lines,
// so a line without a price or power figure is listed, never guessed.

#include <optional>
#include <string>
#include <vector>

#include "ctwin/fabric/floor_plan.hpp"
#include "ctwin/fabric/parts_catalog.hpp"
#include "ctwin/fabric/summary.hpp"

namespace ctwin::fabric {

enum class CostCategory { kServers, kSwitches, kOptics };

struct BomLine {
  std::string role;  ///< "servers", "leaf switches", "access transceivers (NIC end)", ...
  CostCategory category = CostCategory::kServers;
  std::string part;      ///< the catalog part's name
  std::string currency;  ///< of unit_price
  long long count = 0;
  bool in_server = false;  ///< NICs a server's price and power already cover
  std::optional<double> unit_price;  ///< in the catalog's currency; none when unpriced or in_server
  std::optional<Power> unit_power;   ///< planning power; none when unknown or in_server

  [[nodiscard]] std::optional<double> price() const;
  [[nodiscard]] std::optional<Power> power() const;
};

/// One scale-out link kind as cabled.
struct LinkRun {
  LinkKind kind = LinkKind::kAccess;
  Bandwidth bandwidth;
  long long links = 0;
  double length_m = 0;
  std::string length_class;
  std::string cable;                    ///< chosen cable part
  std::string nic_transceiver;          ///< access links over fiber only
  std::string switch_transceiver;       ///< fiber only
  long long transceivers = 0;
};

struct CategoryTotal {
  double capex = 0;            ///< priced lines only
  Power power;                 ///< lines with a power figure only
  long long unpriced_lines = 0;
  long long unpowered_lines = 0;
};

struct BillOfMaterials {
  std::string currency;  ///< of every price; empty when nothing is priced
  FloorLayout floor;
  std::vector<LinkRun> links;
  std::vector<BomLine> lines;
  CategoryTotal servers, switches, optics;
  long long switch_count = 0;
  long long transceivers = 0;
  long long cables = 0;

  [[nodiscard]] double capex() const { return servers.capex + switches.capex + optics.capex; }
  [[nodiscard]] Power power() const { return servers.power + switches.power + optics.power; }
  [[nodiscard]] bool fully_priced() const {
    return servers.unpriced_lines + switches.unpriced_lines + optics.unpriced_lines == 0;
  }
  [[nodiscard]] bool fully_powered() const {
    return servers.unpowered_lines + switches.unpowered_lines + optics.unpowered_lines == 0;
  }
};

/// The bill of `summary` (a build of `spec`) from `catalog`. A server, switch or NIC model
/// missing from the catalog, or no cable or transceiver for a link's speed and length, is an
/// InputError naming the part and `parts_origin` (the catalog or --parts file to add it to).
[[nodiscard]] BillOfMaterials bill_of_materials(const ClusterSpec& spec, const Topology& topology,
                                                const FabricSummary& summary, const PartsCatalog& catalog,
                                                const FloorPlan& floor = {},
                                                const std::string& parts_origin = "models/parts");

[[nodiscard]] const char* to_string(CostCategory category);

}  // namespace ctwin::fabric
