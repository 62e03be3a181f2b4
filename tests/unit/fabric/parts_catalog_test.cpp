#include "ctwin/fabric/parts_catalog.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "ctwin/core/error.hpp"
#include "ctwin/core/json_reader.hpp"
#include "ctwin/fabric/cluster_spec.hpp"

namespace ctwin::fabric {
namespace {

namespace fs = std::filesystem;

const fs::path kParts = fs::path(CTWIN_SOURCE_DIR) / "models" / "parts";

// A scratch folder holding one catalog file.
struct ScratchCatalog {
  fs::path dir;
  explicit ScratchCatalog(const std::string& parts_json) {
    dir = fs::temp_directory_path() / ("ctwin-parts-" + std::to_string(::getpid()) + "-" +
                                       std::to_string(reinterpret_cast<std::uintptr_t>(this)));
    fs::create_directories(dir);
    std::ofstream(dir / "a.json") << parts_json;
  }
  ~ScratchCatalog() { fs::remove_all(dir); }
};

std::string one_part(const std::string& fields) {
  return R"({"parts": [{"name": "S", "kind": "switch", "ports": 64, "port_bandwidth": "400Gbps",
                        "sources": ["a datasheet"], "date": "2024")" +
         fields + "}]}";
}

std::string error_of(const std::string& parts_json) {
  ScratchCatalog scratch(parts_json);
  try {
    (void)load_parts_catalog(scratch.dir);
  } catch (const InputError& error) {
    return error.pointer() + ": " + error.message();
  }
  return "";
}

// Every figure carries its source: each part names sources and a date, each price its
// currency, basis, source and date, and a part without a price or power says why.
TEST(PartsCatalog, EveryBundledPartHasItsSources) {
  const PartsCatalog catalog = load_parts_catalog(kParts);
  ASSERT_GE(catalog.parts.size(), 20u);
  for (const Part& part : catalog.parts) {
    SCOPED_TRACE(part.name);
    EXPECT_FALSE(part.sources.empty());
    for (const auto& source : part.sources) EXPECT_GE(source.size(), 10u);
    EXPECT_FALSE(part.date.empty());
    if (part.price) {
      EXPECT_EQ(part.price->currency, "USD");
      EXPECT_FALSE(part.price->basis.empty());
      EXPECT_GE(part.price->source.size(), 10u);
      EXPECT_FALSE(part.price->date.empty());
      EXPECT_GT(part.price->amount, 0);
    } else {
      EXPECT_FALSE(part.price_note.empty());
    }
    if (!part.planning_power()) { EXPECT_FALSE(part.power_note.empty()); }
  }
}

// The catalog knows every server, NIC and switch the bundled topologies name.
TEST(PartsCatalog, CoversEveryBundledTopology) {
  const PartsCatalog catalog = load_parts_catalog(kParts);
  int topologies = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(CTWIN_SOURCE_DIR) / "topologies")) {
    if (entry.path().extension() != ".json") continue;
    ++topologies;
    const ClusterSpec spec = load_cluster(entry.path());
    SCOPED_TRACE(entry.path().string());
    EXPECT_NE(catalog.find(PartCategory::kServer, spec.server.name), nullptr) << spec.server.name;
    EXPECT_NE(catalog.find(PartCategory::kNic, spec.server.nics.model), nullptr) << spec.server.nics.model;
    const Part* sw = catalog.find(PartCategory::kSwitch, spec.fabric.switch_spec.model);
    ASSERT_NE(sw, nullptr) << spec.fabric.switch_spec.model;
    EXPECT_EQ(sw->ports, spec.fabric.switch_spec.ports);
  }
  EXPECT_EQ(topologies, 13);  // slingshot-a100-fat-tree the thirteenth
}

TEST(PartsCatalog, ReadsPowerWithUnits) {
  EXPECT_DOUBLE_EQ(parse_power("747W", "f", "p").watts(), 747);
  EXPECT_DOUBLE_EQ(parse_power("10.2kW", "f", "p").watts(), 10200);
  EXPECT_THROW((void)parse_power("747", "f", "p"), InputError);
  EXPECT_THROW((void)parse_power("747 W", "f", "p"), InputError);
  EXPECT_THROW((void)parse_power("-5W", "f", "p"), InputError);
  EXPECT_THROW((void)parse_power("3MW", "f", "p"), InputError);
}

TEST(PartsCatalog, BadEntriesNameTheirField) {
  EXPECT_EQ(error_of(one_part(R"(, "price": {"amount": 5, "basis": "b", "source": "s", "date": "d"})")),
            "/parts/0/price/currency: a price needs its currency (ISO 4217, e.g. \"USD\")");
  EXPECT_EQ(error_of(one_part(R"(, "price": {"amount": 5, "currency": "dollars", "basis": "b", "source": "s", "date": "d"})")),
            "/parts/0/price/currency: 'dollars' is not a three-letter ISO 4217 code such as \"USD\"");
  EXPECT_EQ(error_of(one_part(R"(, "price": null, "price_note": "n", "power_max": 700)")),
            "/parts/0/power_max: must be a power with its unit, e.g. \"747W\" or \"10.2kW\", or null");
  EXPECT_EQ(error_of(one_part(R"(, "price": null)")),
            "/parts/0/price_note: a part without a price says why (e.g. \"no public list price\")");
  EXPECT_EQ(error_of(one_part(R"(, "price": null, "price_note": "n", "colour": "red")")).substr(0, 16), "/parts/0/colour:");
  EXPECT_EQ(error_of(R"({"parts": [{"name": "S", "kind": "router", "sources": ["x"], "date": "d"}]})").substr(0, 14),
            "/parts/0/kind:");
  const std::string twice =
      R"({"parts": [{"name": "C", "kind": "cable", "medium": "copper", "reach": "3m", "price": null, "price_note": "n", "sources": ["x"], "date": "d"},
                    {"name": "C", "kind": "cable", "medium": "copper", "reach": "3m", "price": null, "price_note": "n", "sources": ["x"], "date": "d"}]})";
  EXPECT_EQ(error_of(twice), "/parts/1/name: 'C' is given twice in this file");
  EXPECT_EQ(error_of(R"({"parts": [{"name": "C", "kind": "cable", "medium": "copper", "reach": "3", "price": null, "price_note": "n", "sources": ["x"], "date": "d"}]})"),
            "/parts/0/reach: '3' is not a length such as \"3m\" or \"2km\"");
}

TEST(PartsCatalog, PricesInTwoCurrenciesAreRefused) {
  ScratchCatalog scratch(one_part(R"(, "price": {"amount": 5, "currency": "EUR", "basis": "b", "source": "s", "date": "d"})"));
  std::ofstream(scratch.dir / "b.json")
      << R"({"parts": [{"name": "T", "kind": "switch", "ports": 64, "port_bandwidth": "400Gbps", "sources": ["x"], "date": "d",
                        "price": {"amount": 7, "currency": "USD", "basis": "b", "source": "s", "date": "d"}}]})";
  try {
    (void)load_parts_catalog(scratch.dir);
    FAIL() << "expected an InputError";
  } catch (const InputError& error) {
    EXPECT_NE(error.message().find("give every price in one currency"), std::string::npos) << error.what();
  }
}

// A user's file replaces a bundled entry by name and adds new ones.
TEST(PartsCatalog, UserFileReplacesEntries) {
  ScratchCatalog scratch(R"json({"parts": [
      {"name": "OSFP 400G SR4 (MMA4Z00-NS400)", "kind": "transceiver", "bandwidth": "400Gbps", "ports": 1, "reach": "50m",
       "power_max": "9W", "price": {"amount": 800, "currency": "USD", "basis": "my quote", "source": "vendor quote", "date": "2026-11"},
       "sources": ["my quote"], "date": "2026-11"}]})json");
  const PartsCatalog catalog = load_parts_catalog(kParts, (scratch.dir / "a.json").string());
  const Part* part = catalog.find(PartCategory::kTransceiver, "OSFP 400G SR4 (MMA4Z00-NS400)");
  ASSERT_NE(part, nullptr);
  ASSERT_TRUE(part->price);
  EXPECT_DOUBLE_EQ(part->price->amount, 800);
  EXPECT_EQ(catalog.parts.size(), load_parts_catalog(kParts).parts.size());
}

}  // namespace
}  // namespace ctwin::fabric
