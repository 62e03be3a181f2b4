#pragma once
// What a build is made of, part by part: servers, switches, NICs, transceivers, cables and storage with
// their power and price, each figure with its source (models/parts/*.json). A user's own file
// (`--parts FILE`) replaces entries by name and adds new ones, so unpublished prices can be
// given without editing the bundled catalog.

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "ctwin/core/units.hpp"

namespace ctwin::fabric {

/// Electrical power in watts.
class Power {
 public:
  constexpr Power() = default;
  [[nodiscard]] static constexpr Power watts(double w) { return Power(w); }
  [[nodiscard]] constexpr double watts() const { return watts_; }
  [[nodiscard]] constexpr double kilowatts() const { return watts_ * 1e-3; }
  friend constexpr Power operator+(Power a, Power b) { return Power(a.watts_ + b.watts_); }
  friend constexpr Power operator*(Power a, double k) { return Power(a.watts_ * k); }
  friend constexpr auto operator<=>(Power, Power) = default;

 private:
  constexpr explicit Power(double w) : watts_(w) {}
  double watts_ = 0;
};

/// "747W", "10.2kW", "1.5MW"; InputError naming `source` and `field` otherwise.
[[nodiscard]] Power parse_power(const std::string& text, const std::string& source, const std::string& field);

struct Price {
  double amount = 0;
  std::string currency;  ///< ISO 4217: "USD"
  std::string basis;     ///< "list price", "street price", "analyst estimate", ...
  std::string source;
  std::string date;
};

/// kStorage: a storage server of a shared tier or a drive of a node-local one (storage_spec.hpp).
enum class PartCategory { kServer, kSwitch, kNic, kTransceiver, kCable, kStorage };

struct Part {
  std::string name;
  PartCategory kind = PartCategory::kServer;
  std::optional<Power> power_typical;
  std::optional<Power> power_max;
  std::string power_note;  ///< why a figure is missing or what it covers
  std::optional<Price> price;
  std::string price_note;  ///< why there is no price
  std::vector<std::string> sources;
  std::string date;
  std::string file;  ///< where the entry was read, for messages

  // Kind-specific facts (zero or empty where they do not apply).
  bool includes_nics = false;  ///< server: its power and price cover its NICs
  int ports = 0;               ///< switch: radix; transceiver: ports per module (2 for twin-port)
  Bandwidth bandwidth;         ///< switch port, NIC maximum, transceiver port rate
  int pcie_generation = 0;     ///< NIC: the host link it needs
  int pcie_lanes = 0;
  double reach_m = 0;          ///< transceiver, cable
  std::string medium;          ///< cable: "copper" or "fiber"

  /// The figure a facility plans for: maximum power where published, else typical.
  [[nodiscard]] std::optional<Power> planning_power() const { return power_max ? power_max : power_typical; }
};

struct PartsCatalog {
  std::vector<Part> parts;  ///< sorted by name
  std::vector<std::string> files;

  /// The part called `name` of `kind`, or null.
  [[nodiscard]] const Part* find(PartCategory kind, const std::string& name) const;
  /// Parts of `kind`, in name order.
  [[nodiscard]] std::vector<const Part*> of_kind(PartCategory kind) const;
};

/// Reads every *.json under `dir` (in name order), then `user_file` if not empty, whose entries
/// replace bundled ones of the same name. A bad entry (unknown kind, price without a currency,
/// power without a unit, a name given twice in one file, prices in two currencies) is an
/// InputError naming the file and field.
[[nodiscard]] PartsCatalog load_parts_catalog(const std::filesystem::path& dir, const std::string& user_file = "");

[[nodiscard]] const char* to_string(PartCategory kind);

}  // namespace ctwin::fabric
