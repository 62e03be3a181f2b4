// The fields of the two zoned Clos kinds (plane_clos.hpp): dual_plane in HPN's words (segments,
// pods, aggregation switches) and multi_zone in Meta's (racks, zones, cluster switches). Both end
// in the same parameters, so one Topology builds them.

#include <cmath>

#include "ctwin/core/json_reader.hpp"
#include "ctwin/fabric/topologies/plane_clos.hpp"

namespace ctwin::fabric {
namespace {

constexpr int kMaxPlaneClosCount = 1 << 16;

struct ZonedClosFields {
  const char* group;      ///< the field of nodes per leaf group
  const char* per_zone;   ///< the field of leaf groups per zone
  const char* spines;     ///< the field of spines per zone (and plane)
  const char* zones;      ///< the field of zones the design holds
};

// Reads and checks what both kinds share: the counts, the aggregation tier's oversubscription,
// and that every switch's ports can wire its cables.
void read_zoned_clos(JsonObjectReader& reader, const ServerSpec& server, FabricSpec& fabric, int planes,
                     bool rail_leaves, const ZonedClosFields& names) {
  fabric.kind = FabricKind::kTopOfRack;
  const auto per_group = reader.integer(names.group, 1, kMaxPlaneClosCount);
  const auto groups = reader.integer(names.per_zone, 1, kMaxPlaneClosCount);
  const auto spines = reader.integer(names.spines, 1, kMaxPlaneClosCount);
  const auto zones = reader.integer(names.zones, 1, kMaxPlaneClosCount);
  const double ratio = reader.number_or("aggregation_oversubscription", 1, 64, 1);
  const int ports = fabric.switch_spec.ports;
  // A leaf's downlinks in ports of the fabric's link speed: HPN's 200G NIC ports take half a
  // 400G port each (a 51.2T switch's 128 x 400G carry 128 x 200G down and 60 x 400G up).
  const double port_share = server.nics.link.bandwidth.bytes_per_second() / planes / fabric.link.bandwidth.bytes_per_second();
  const long long leaf_down =
      static_cast<long long>(std::ceil(static_cast<double>(per_group) * (rail_leaves ? 1 : server.nics.count) * port_share - 1e-9));
  if (leaf_down + spines > ports) {
    reader.fail(names.group, "a leaf needs " + std::to_string(leaf_down) + " downlink ports (" + std::to_string(per_group) +
                                 " nodes) and " + std::to_string(spines) + " uplinks (" + names.spines + ") but has " +
                                 std::to_string(ports) + " (fabric.switch.ports)");
  }
  // Every leaf of a zone's plane has one cable to each of its spines.
  const long long spine_down = groups * (rail_leaves ? server.nics.count : 1);
  const long long spine_up = zones > 1 ? static_cast<long long>(std::ceil(static_cast<double>(spine_down) / ratio - 1e-9)) : 0;
  if (spine_down + spine_up > ports) {
    reader.fail(names.per_zone, std::to_string(groups) + " per zone give each spine " + std::to_string(spine_down) +
                                    " leaf downlinks and " + std::to_string(spine_up) +
                                    " core uplinks (aggregation_oversubscription " + std::to_string(ratio) +
                                    ") but it has " + std::to_string(ports) + " ports (fabric.switch.ports)");
  }
  // Each core takes one cable from its spine in every zone.
  if (zones > ports) {
    reader.fail(names.zones, std::to_string(zones) + " zones need " + std::to_string(zones) +
                                 " ports on every core switch (one per zone), but it has " + std::to_string(ports) +
                                 " (fabric.switch.ports)");
  }
  fabric.parameters = {{"planes", planes},
                       {"rail_leaves", rail_leaves ? 1.0 : 0.0},
                       {"nodes_per_group", static_cast<double>(per_group)},
                       {"groups_per_zone", static_cast<double>(groups)},
                       {"spines", static_cast<double>(spines)},
                       {"spine_uplinks", static_cast<double>(spine_up)},
                       {"zones", static_cast<double>(zones)},
                       {"aggregation_oversubscription", ratio}};
}

}  // namespace

void read_dual_plane_fields(JsonObjectReader& reader, const ServerSpec& server, FabricSpec& fabric) {
  read_zoned_clos(reader, server, fabric, 2, true,
                  {"nodes_per_segment", "segments_per_pod", "aggregation_switches", "pods"});
}

void read_multi_zone_fields(JsonObjectReader& reader, const ServerSpec& server, FabricSpec& fabric) {
  read_zoned_clos(reader, server, fabric, 1, false,
                  {"nodes_per_rack", "racks_per_zone", "cluster_switches", "zones"});
}

}  // namespace ctwin::fabric
