#include "ctwin/fabric/parts_catalog.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "ctwin/core/error.hpp"
#include "ctwin/core/json_reader.hpp"
#include "ctwin/core/unit_parse.hpp"
#include "ctwin/fabric/pcie_generation.hpp"

namespace ctwin::fabric {
namespace {

// Beyond any single rack or switch: a typo's extra zeros, not a part.
constexpr double kMaxWatts = 2e6;
constexpr double kMaxAmount = 1e9;

std::optional<Power> read_power(JsonObjectReader& reader, const std::string& key) {
  const nlohmann::json* value = reader.optional(key);
  if (value == nullptr || value->is_null()) return std::nullopt;
  if (!value->is_string()) reader.fail(key, "must be a power with its unit, e.g. \"747W\" or \"10.2kW\", or null");
  return parse_power(value->get<std::string>(), reader.source(), reader.pointer_to(key));
}

std::optional<Price> read_price(JsonObjectReader& reader) {
  const nlohmann::json* value = reader.optional("price");
  if (value == nullptr || value->is_null()) return std::nullopt;
  if (!value->is_object()) reader.fail("price", "must be an object {amount, currency, basis, source, date} or null");
  JsonObjectReader price(*value, reader.source(), reader.pointer_to("price"));
  Price result;
  result.amount = price.number("amount", 0, kMaxAmount);
  if (!price.has("currency")) price.fail("currency", "a price needs its currency (ISO 4217, e.g. \"USD\")");
  result.currency = price.string("currency");
  if (result.currency.size() != 3 ||
      !std::all_of(result.currency.begin(), result.currency.end(), [](char c) { return c >= 'A' && c <= 'Z'; })) {
    price.fail("currency", "'" + result.currency + "' is not a three-letter ISO 4217 code such as \"USD\"");
  }
  result.basis = price.string("basis");
  result.source = price.string("source");
  result.date = price.string("date");
  price.finish();
  return result;
}

double read_reach(JsonObjectReader& reader) {
  const std::string text = reader.string("reach");
  const std::string field = reader.pointer_to("reach");
  std::size_t used = 0;
  double metres = 0;
  try {
    metres = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  const std::string unit = text.substr(used);
  if (used == 0 || (unit != "m" && unit != "km") || !(metres > 0)) {
    throw InputError(reader.source(), field, "'" + text + "' is not a length such as \"3m\" or \"2km\"");
  }
  metres *= unit == "km" ? 1000 : 1;
  if (metres > 1e5) throw InputError(reader.source(), field, "reach " + text + " is beyond any data-centre link");
  return metres;
}

Part read_part(JsonObjectReader reader, const std::string& file) {
  Part part;
  part.file = file;
  part.name = reader.string("name");
  if (part.name.empty()) reader.fail("name", "must not be empty");
  const std::string kind = reader.choice("kind", {"server", "switch", "nic", "transceiver", "cable", "storage"});
  part.kind = kind == "server"        ? PartCategory::kServer
              : kind == "switch"      ? PartCategory::kSwitch
              : kind == "nic"         ? PartCategory::kNic
              : kind == "transceiver" ? PartCategory::kTransceiver
              : kind == "cable"       ? PartCategory::kCable
                                      : PartCategory::kStorage;
  part.power_typical = read_power(reader, "power_typical");
  part.power_max = read_power(reader, "power_max");
  if (part.power_typical && part.power_max && *part.power_typical > *part.power_max) {
    reader.fail("power_typical", "exceeds power_max");
  }
  part.power_note = reader.string_or("power_note", "");
  part.price = read_price(reader);
  part.price_note = reader.string_or("price_note", "");
  if (!part.price && part.price_note.empty()) {
    reader.fail("price_note", "a part without a price says why (e.g. \"no public list price\")");
  }
  part.sources = reader.string_list("sources");
  if (part.sources.empty()) reader.fail("sources", "every part names where its figures come from");
  part.date = reader.string("date");
  switch (part.kind) {
    case PartCategory::kServer: part.includes_nics = reader.boolean_or("includes_nics", false); break;
    case PartCategory::kSwitch:
      part.ports = static_cast<int>(reader.integer("ports", 2, 4096));
      part.bandwidth = reader.bandwidth("port_bandwidth");
      break;
    case PartCategory::kNic:
      part.bandwidth = reader.bandwidth("max_bandwidth");
      part.pcie_generation = static_cast<int>(reader.integer("pcie_generation", 1, kMaxPcieGeneration));
      part.pcie_lanes = static_cast<int>(reader.integer("pcie_lanes", 1, 32));
      break;
    case PartCategory::kTransceiver:
      part.bandwidth = reader.bandwidth("bandwidth");
      part.ports = static_cast<int>(reader.integer("ports", 1, 8));
      part.reach_m = read_reach(reader);
      break;
    case PartCategory::kStorage:
      // The throughput a tier gets from it is the topology's (storage.tiers), with its source;
      // the catalog keeps power and price, and the published read rate for reference.
      if (reader.has("read_bandwidth")) part.bandwidth = reader.bandwidth("read_bandwidth");
      break;
    case PartCategory::kCable:
      part.medium = reader.choice("medium", {"copper", "fiber"});
      part.reach_m = read_reach(reader);
      break;
  }
  reader.finish();
  return part;
}

std::vector<Part> read_file(const std::filesystem::path& path) {
  const nlohmann::json document = load_json_file(path);
  const std::string source = path.string();
  JsonObjectReader reader(document, source, "");
  (void)reader.string_or("description", "");
  const nlohmann::json& list = reader.required("parts");
  if (!list.is_array()) reader.fail("parts", "must be an array of parts");
  reader.finish();
  std::vector<Part> parts;
  std::set<std::string> names;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string pointer = "/parts/" + std::to_string(i);
    if (!list[i].is_object()) throw InputError(source, pointer, "must be an object");
    Part part = read_part(JsonObjectReader(list[i], source, pointer), source);
    if (!names.insert(part.name).second) {
      throw InputError(source, pointer + "/name", "'" + part.name + "' is given twice in this file");
    }
    parts.push_back(std::move(part));
  }
  return parts;
}

}  // namespace

Power parse_power(const std::string& text, const std::string& source, const std::string& field) {
  std::size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  const std::string unit = text.substr(used);
  const double scale = unit == "W" ? 1 : unit == "kW" ? 1e3 : unit == "MW" ? 1e6 : 0;
  if (used == 0 || scale == 0 || !std::isfinite(value)) {
    throw InputError(source, field, "'" + text + "' is not a power with its unit, e.g. \"747W\" or \"10.2kW\"");
  }
  const double watts = value * scale;
  if (watts < 0 || watts > kMaxWatts) {
    throw InputError(source, field, "power " + text + " is outside 0 W to 2 MW");
  }
  return Power::watts(watts);
}

const Part* PartsCatalog::find(PartCategory kind, const std::string& name) const {
  for (const Part& part : parts) {
    if (part.kind == kind && part.name == name) return &part;
  }
  return nullptr;
}

std::vector<const Part*> PartsCatalog::of_kind(PartCategory kind) const {
  std::vector<const Part*> found;
  for (const Part& part : parts) {
    if (part.kind == kind) found.push_back(&part);
  }
  return found;
}

PartsCatalog load_parts_catalog(const std::filesystem::path& dir, const std::string& user_file) {
  std::vector<std::filesystem::path> files;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(dir, error)) {
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  }
  if (error) throw InputError(dir.string(), "", "cannot read the parts catalog: " + error.message());
  std::sort(files.begin(), files.end());
  if (!user_file.empty()) files.emplace_back(user_file);

  PartsCatalog catalog;
  std::map<std::pair<int, std::string>, Part> by_name;
  for (const auto& path : files) {
    catalog.files.push_back(path.string());
    const bool user = !user_file.empty() && path == std::filesystem::path(user_file);
    for (Part& part : read_file(path)) {
      const auto key = std::make_pair(static_cast<int>(part.kind), part.name);
      if (!user && by_name.count(key)) {
        throw InputError(path.string(), "", "part '" + part.name + "' is also in " + by_name.at(key).file);
      }
      by_name[key] = std::move(part);
    }
  }
  std::string currency;
  for (auto& [key, part] : by_name) {
    if (part.price) {
      if (currency.empty()) currency = part.price->currency;
      if (part.price->currency != currency) {
        throw InputError(part.file, "price/currency", "part '" + part.name + "' is priced in " + part.price->currency +
                                                          " but others in " + currency +
                                                          ": give every price in one currency");
      }
    }
    catalog.parts.push_back(std::move(part));
  }
  std::stable_sort(catalog.parts.begin(), catalog.parts.end(),
                   [](const Part& a, const Part& b) { return a.name < b.name; });
  return catalog;
}

const char* to_string(PartCategory kind) {
  switch (kind) {
    case PartCategory::kServer: return "server";
    case PartCategory::kSwitch: return "switch";
    case PartCategory::kNic: return "nic";
    case PartCategory::kTransceiver: return "transceiver";
    case PartCategory::kCable: return "cable";
    case PartCategory::kStorage: return "storage";
  }
  return "?";
}

}  // namespace ctwin::fabric
