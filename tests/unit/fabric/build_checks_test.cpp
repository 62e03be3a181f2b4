#include "ctwin/fabric/build_checks.hpp"
#include "ctwin/fabric/topologies/fat_tree.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "bundled_fabric.hpp"

namespace ctwin::fabric {
namespace {

std::vector<BuildWarning> checks_of(const std::string& topology, int gpus, const std::vector<std::string>& overrides = {}) {
  const Fabric fabric = testing::bundled_fabric(topology, gpus, overrides);
  return check_build(fabric.spec(), fabric.topology());
}

const BuildWarning* find(const std::vector<BuildWarning>& warnings, const std::string& check) {
  for (const auto& warning : warnings) {
    if (warning.check == check) return &warning;
  }
  return nullptr;
}

// The reference designs as bundled are sound: no warning for any of them at their golden sizes.
TEST(BuildChecks, BundledReferenceBuildsAreQuiet) {
  EXPECT_TRUE(checks_of("dgx-h100-superpod", 1024).empty());
  EXPECT_TRUE(checks_of("dgx-b200-superpod", 4096).empty());
  EXPECT_TRUE(checks_of("gb200-nvl72", 576).empty());
  EXPECT_TRUE(checks_of("dgx-a100-superpod", 320).empty());
}

// 800G NICs on a DGX H100: PCIe Gen5 x16 carries 63 GB/s = 504 Gb/s, and the QM9700's ports run
// at 400 Gb/s.
TEST(BuildChecks, NicFasterThanItsSlotAndItsSwitchPort) {
  const auto warnings = checks_of("dgx-h100-superpod", 64, {"server.nics.bandwidth=800Gbps"});
  const BuildWarning* slot = find(warnings, "nic_above_pcie");
  ASSERT_NE(slot, nullptr);
  EXPECT_EQ(slot->message,
            "a 800 Gb/s NIC sits behind a PCIe Gen5 x16 link of 63 GB/s (504 Gb/s) per direction, 48.0 GB/s "
            "achieved: GPU traffic through it runs at the slot's rate, not the NIC's");
  EXPECT_NE(slot->fix.find("server.pcie.generation=6"), std::string::npos);
  const BuildWarning* port = find(warnings, "nic_above_switch_port");
  ASSERT_NE(port, nullptr);
  EXPECT_NE(port->message.find("800 Gb/s but the fabric's switch ports at 400 Gb/s"), std::string::npos);
  // With a Gen6 slot and 800G switch links, neither applies.
  EXPECT_TRUE(checks_of("dgx-h100-superpod", 64,
                        {"server.nics.bandwidth=800Gbps", "server.pcie.generation=6", "server.pcie.bandwidth=126GBps",
                         "fabric.link.bandwidth=800Gbps"})
                  .empty());
}

// 2:1 on a 64-port rail-optimized leaf: 32 down + 16 up leaves 16 ports dark per leaf, and 42
// nodes per SU would fill it (42 + 21 = 63).
TEST(BuildChecks, OversubscribedLeafLeavingPortsIdle) {
  const auto warnings = checks_of("dgx-h100-superpod", 1024, {"fabric.oversubscription.leaf=2"});
  const BuildWarning* idle = find(warnings, "leaf_ports_idle");
  ASSERT_NE(idle, nullptr);
  EXPECT_EQ(idle->message,
            "each leaf uses 32 down + 16 up of its 64 ports (2.00:1): 16 ports idle per leaf, 512 in all (25 % of leaf ports)");
  EXPECT_EQ(idle->fix, "fill the leaves: fabric.nodes_per_su=42 gives 42 downlinks and 21 uplinks; or keep 1:1");
  EXPECT_EQ(find(checks_of("dgx-h100-superpod", 1344, {"fabric.oversubscription.leaf=2", "fabric.nodes_per_su=42"}),
                 "leaf_ports_idle"),
            nullptr);
}

// Five SUs of DGX H100: 40 leaves x 32 uplinks = 1,280 spine ports, but the leaf uplinks split
// evenly only over 32 spines (the smallest divisor of 32 with 40 x 32/d <= 64): 2,048 ports.
TEST(BuildChecks, SpinesStrandingPorts) {
  const auto warnings = checks_of("dgx-h100-superpod", 1280);
  const BuildWarning* spines = find(warnings, "spine_ports_stranded");
  ASSERT_NE(spines, nullptr);
  EXPECT_EQ(spines->message, "32 spines have 2048 ports; 1280 are wired, 768 (38 %) stranded");
  // Four and eight SUs fill their spines.
  EXPECT_EQ(find(checks_of("dgx-h100-superpod", 1024), "spine_ports_stranded"), nullptr);
  EXPECT_EQ(find(checks_of("dgx-h100-superpod", 2048), "spine_ports_stranded"), nullptr);
}

// Overriding a rail-optimized topology to top of rack leaves nodes_per_su behind: the reader
// ignores it and the warning says so.
TEST(BuildChecks, IgnoredFieldsAfterAKindOverride) {
  const Fabric fabric = testing::bundled_fabric("dgx-h100-superpod", 1024, {"fabric.kind=top_of_rack"});
  EXPECT_EQ(fat_tree(fabric).plan().nodes_per_leaf, 4);
  nlohmann::json document = {{"fabric", {{"kind", "top_of_rack"}, {"nodes_per_su", 32}, {"rails_per_leaf", 1}}}};
  const auto warnings = ignored_fields(document);
  ASSERT_EQ(warnings.size(), 2u);
  EXPECT_EQ(warnings[0].message, "fabric.nodes_per_su = 32 is ignored: it only means something with kind rail_optimized");
  EXPECT_EQ(warnings[0].fix, "remove it, or --set fabric.nodes_per_su=null");
  document["fabric"]["kind"] = "rail_optimized";
  EXPECT_TRUE(ignored_fields(document).empty());
}

}  // namespace
}  // namespace ctwin::fabric
