#pragma once
// Where things stand on the floor, just enough to tell a 2 m cable from a 30 m one: server
// racks in rows, leaves of a top-of-rack fabric in their rack, leaves of a rail-optimized
// scalable unit in a network rack in the middle of the unit's racks, spines and cores in a
// network row in the middle of the hall. Each scale-out link kind gets its longest run, and
// that length picks the cable: copper inside a rack, fiber and transceivers beyond.

#include <string>

#include "ctwin/fabric/cluster_spec.hpp"
#include "ctwin/fabric/elements.hpp"
#include "ctwin/fabric/topology.hpp"

namespace ctwin::fabric {

struct FloorPlan {
  int servers_per_rack = 0;     ///< 0: 4 for servers of up to 8 GPUs (a 40 kW rack of DGX H100), 1 for rack-scale nodes
  int racks_per_row = 16;
  int switches_per_rack = 16;   ///< 1U switches per network rack, with room for patch panels
  double rack_width_m = 0.6;
  double row_pitch_m = 3.0;     ///< rack depth plus a hot and a cold aisle
  double in_rack_m = 1.5;       ///< a cable that stays in its rack
  double drop_m = 4.0;          ///< up to the overhead tray and down again, both ends
};

/// The longest run of each scale-out link kind, and how many racks the build fills.
struct FloorLayout {
  int servers_per_rack = 0;
  long long server_racks = 0;
  long long network_racks = 0;
  long long rows = 0;
  double access_m = 0;      ///< NIC to leaf
  double leaf_spine_m = 0;
  double spine_core_m = 0;
  /// Dragonfly: router to router inside a group (its racks side by side) and between groups
  /// (across the hall, as a leaf to a spine in the middle of it).
  double local_m = 0;
  std::string access_class;  ///< "in rack", "in row" or "across rows"
  std::string leaf_spine_class;
  std::string spine_core_class;
  std::string local_class;

  [[nodiscard]] double length_m(LinkKind kind) const;
  [[nodiscard]] const std::string& length_class(LinkKind kind) const;
};

/// InputError naming `origin` + the field ("--racks-per-row") when a field is out of range.
void check_floor(const FloorPlan& floor, const std::string& origin = "--");

/// Lays out the build `plan` of `spec`. `floor` fields out of range (no racks per row, a
/// negative pitch) are an InputError naming `origin` + the field ("--racks-per-row").
[[nodiscard]] FloorLayout lay_out(const ClusterSpec& spec, const Topology& topology, const FloorPlan& floor,
                                  const std::string& origin = "--");

}  // namespace ctwin::fabric
