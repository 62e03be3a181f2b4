#include "ctwin/fabric/floor_plan.hpp"

#include <algorithm>
#include <cmath>

#include "ctwin/core/error.hpp"
#include "ctwin/core/int_math.hpp"

namespace ctwin::fabric {
namespace {

void check(bool ok, const std::string& origin, const std::string& field, const std::string& message) {
  if (!ok) throw InputError(origin, field, message);
}

}  // namespace

double FloorLayout::length_m(LinkKind kind) const {
  switch (kind) {
    case LinkKind::kAccess: return access_m;
    case LinkKind::kLeafSpine: return leaf_spine_m;
    case LinkKind::kSpineCore: return spine_core_m;
    case LinkKind::kLocal: return local_m;
    case LinkKind::kGlobal: return leaf_spine_m;
    case LinkKind::kBorder: return spine_core_m;
    default: return 0;
  }
}

const std::string& FloorLayout::length_class(LinkKind kind) const {
  static const std::string kNone;
  switch (kind) {
    case LinkKind::kAccess: return access_class;
    case LinkKind::kLeafSpine: return leaf_spine_class;
    case LinkKind::kSpineCore: return spine_core_class;
    case LinkKind::kLocal: return local_class;
    case LinkKind::kGlobal: return leaf_spine_class;
    case LinkKind::kBorder: return spine_core_class;
    default: return kNone;
  }
}

void check_floor(const FloorPlan& floor, const std::string& origin) {
  // 128: an HPE Cray EX GPU cabinet, 64 blades of two nodes (NERSC's Perlmutter interconnect page).
  check(floor.servers_per_rack >= 0 && floor.servers_per_rack <= 256, origin + "servers-per-rack", "",
        "must be 0 (the default for the server) to 256");
  check(floor.racks_per_row >= 1 && floor.racks_per_row <= 1000, origin + "racks-per-row", "", "must be 1 to 1000");
  check(floor.switches_per_rack >= 1 && floor.switches_per_rack <= 64, origin + "switches-per-rack", "", "must be 1 to 64");
  for (double v : {floor.rack_width_m, floor.row_pitch_m, floor.in_rack_m, floor.drop_m}) {
    check(std::isfinite(v) && v > 0 && v <= 100, origin + "floor", "", "rack width, row pitch and cable drops must be 0 to 100 m");
  }
}

FloorLayout lay_out(const ClusterSpec& spec, const Topology& topology, const FloorPlan& floor, const std::string& origin) {
  check_floor(floor, origin);
  FloorLayout layout;
  layout.servers_per_rack = floor.servers_per_rack > 0 ? floor.servers_per_rack : (spec.server.gpus > 8 ? 1 : 4);
  layout.server_racks = ceil_div(topology.nodes(), layout.servers_per_rack);
  const std::vector<TierSize> tiers = topology.tiers();
  long long switches = 0;
  for (const TierSize& tier : tiers) switches += is_fabric_switch(tier.kind) ? tier.switches : 0;
  // Switches above the access tier, which stand in network racks when access switches do not.
  const long long upper_switches = switches - (tiers.empty() ? 0 : tiers.front().switches);
  layout.rows = ceil_div(layout.server_racks, floor.racks_per_row);
  const double half_row = std::ceil(std::min<long long>(layout.server_racks, floor.racks_per_row) / 2.0) * floor.rack_width_m;
  const double half_hall = std::ceil(layout.rows / 2.0) * floor.row_pitch_m;

  if (!topology.rail_aligned()) {
    // The leaf takes nodes_per_leaf servers; while they fit in one rack the leaf stands in it.
    const long long racks_per_leaf = ceil_div(topology.nodes_per_access_switch(), layout.servers_per_rack);
    layout.network_racks = ceil_div(upper_switches, floor.switches_per_rack);
    if (racks_per_leaf <= 1) {
      layout.access_m = floor.in_rack_m;
      layout.access_class = "in rack";
    } else {
      layout.access_m = floor.drop_m + std::ceil(racks_per_leaf / 2.0) * floor.rack_width_m;
      layout.access_class = "in row";
    }
  } else {
    // Leaves of a scalable unit in a network rack in the middle of the unit's server racks: half
    // the unit's racks along the row, plus the network rack's own width.
    const long long su_racks = ceil_div(topology.nodes_per_unit(), layout.servers_per_rack);
    layout.network_racks = ceil_div(switches, floor.switches_per_rack);
    layout.access_m = floor.drop_m +
                      (std::ceil(std::min<long long>(su_racks, floor.racks_per_row) / 2.0) + 1) * floor.rack_width_m;
    layout.access_class = su_racks <= floor.racks_per_row ? "in row" : "across rows";
  }
  // Spines and cores stand in the middle of the hall: the farthest leaf is half a row along
  // and half the rows across.
  layout.leaf_spine_m = floor.drop_m + half_row + half_hall;
  layout.leaf_spine_class = layout.rows > 1 ? "across rows" : "in row";
  layout.spine_core_m = floor.drop_m + floor.row_pitch_m;
  layout.spine_core_class = "network row";
  // A unit's racks side by side (a dragonfly group's routers in its own racks): half of them; a
  // group in one rack (a Cray EX cabinet) keeps its local links inside it.
  const long long unit_racks = ceil_div(topology.nodes_per_unit(), layout.servers_per_rack);
  if (unit_racks <= 1) {
    layout.local_m = floor.in_rack_m;
    layout.local_class = "in rack";
  } else {
    layout.local_m = floor.drop_m + std::ceil(std::min<long long>(unit_racks, floor.racks_per_row) / 2.0) * floor.rack_width_m;
    layout.local_class = unit_racks <= floor.racks_per_row ? "in row" : "across rows";
  }
  return layout;
}

}  // namespace ctwin::fabric
