#include "ctwin/fabric/bill_of_materials.hpp"
#include "ctwin/fabric/topologies/fat_tree.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "bundled_fabric.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/fabric/summary.hpp"

namespace ctwin::fabric {
namespace {

const std::filesystem::path kBundledParts = std::filesystem::path(CTWIN_SOURCE_DIR) / "models" / "parts";

struct Built {
  Fabric fabric;
  FabricSummary summary;
  BillOfMaterials bill;
};

Built bill_of(const std::string& topology, int gpus, const std::vector<std::string>& overrides = {},
              const FloorPlan& floor = {}) {
  static const PartsCatalog catalog = load_parts_catalog(kBundledParts);
  Fabric fabric = testing::bundled_fabric(topology, gpus, overrides);
  FabricSummary summary = summarize(fabric);
  BillOfMaterials bill = bill_of_materials(fabric.spec(), fabric.topology(), summary, catalog, floor);
  return {std::move(fabric), std::move(summary), std::move(bill)};
}

std::map<std::string, long long> counts(const BillOfMaterials& bill) {
  std::map<std::string, long long> out;
  for (const auto& line : bill.lines) out[line.role] += line.count;
  return out;
}

const LinkRun& run_of(const BillOfMaterials& bill, LinkKind kind) {
  for (const auto& run : bill.links) {
    if (run.kind == kind) return run;
  }
  throw std::runtime_error("no run");
}

// Storage tiers' parts join the servers' lines: 20 RapidFS nodes (no published power or price:
// listed, never guessed) and, when the NVMe tier names a drive, 8 a node × 128 nodes at 22 W.
TEST(BillOfMaterials, StorageServersAndDrivesCountWithTheServers) {
  const Built plain = bill_of("dgx-h100-superpod", 1024);
  const Built with = bill_of("storage/dgx-h100-superpod-rapidfs", 1024);
  EXPECT_EQ(counts(with.bill).at("storage servers (pfs)"), 20);
  EXPECT_EQ(with.bill.servers.unpowered_lines, plain.bill.servers.unpowered_lines + 1);
  EXPECT_EQ(with.bill.servers.unpriced_lines, plain.bill.servers.unpriced_lines + 1);
  EXPECT_DOUBLE_EQ(with.bill.power().watts(), plain.bill.power().watts());
  const Built drives = bill_of("storage/dgx-h100-superpod-rapidfs", 1024,
                               {"storage.tiers.1.part=Micron 7400 PRO U.3 7.68TB", "storage.tiers.1.drives_per_node=8"});
  EXPECT_EQ(counts(drives.bill).at("storage drives (nvme)"), 128 * 8);
  EXPECT_DOUBLE_EQ(drives.bill.servers.power.watts() - plain.bill.servers.power.watts(), 128 * 8 * 22.0);
  try {
    (void)bill_of("storage/dgx-h100-superpod-rapidfs", 1024, {"storage.tiers.0.part=Lustre box"});
    ADD_FAILURE() << "an unknown storage part was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("storage.tiers (pfs).part"), std::string::npos) << e.what();
  }
}

// Oracle: NVIDIA DGX SuperPOD H100 RA (RA-11333-001), Table 4, 4 SUs: 32 leaves, 16 spines,
// 1,024 node-to-leaf and 1,024 leaf-to-spine cables; compute ports on twin-port OSFP optics, so
// a leaf's 64 ports take 32 modules and each DGX NIC one single-port module.
TEST(BillOfMaterials, DgxH100SuperPodFourScalableUnits) {
  const Built b = bill_of("dgx-h100-superpod", 1024);
  const auto c = counts(b.bill);
  EXPECT_EQ(c.at("servers"), 128);
  EXPECT_EQ(c.at("leaf switches"), 32);
  EXPECT_EQ(c.at("spine switches"), 16);
  EXPECT_EQ(c.at("NICs"), 1024);
  EXPECT_EQ(c.at("access fibers"), 1024);
  EXPECT_EQ(c.at("leaf-spine fibers"), 1024);
  EXPECT_EQ(c.at("access transceivers (NIC end)"), 1024);
  EXPECT_EQ(c.at("access transceivers (switch end)"), 512);
  EXPECT_EQ(c.at("leaf-spine transceivers (switch end)"), 1024);
  // Conservation: every wired switch port sits in half a twin-port module.
  long long switch_ports = 0;
  for (const auto& tier : b.summary.switch_tiers) switch_ports += tier.ports_used;
  EXPECT_EQ(c.at("access transceivers (switch end)") + c.at("leaf-spine transceivers (switch end)"), switch_ports / 2);
  EXPECT_EQ(b.bill.transceivers, b.summary.transceivers);  // all-optical, as ctwin fabric assumes
  EXPECT_EQ(run_of(b.bill, LinkKind::kAccess).switch_transceiver, "OSFP 800G twin-port 2xSR4 (MMA4Z00-NS)");
  EXPECT_EQ(run_of(b.bill, LinkKind::kAccess).nic_transceiver, "OSFP 400G SR4 (MMA4Z00-NS400)");
  EXPECT_EQ(b.bill.floor.server_racks, 32);
}

// Oracle: DGX SuperPOD B200 RA, 16 SUs (512 nodes, three tiers): 128 leaves, 128 spines,
// 64 cores, and node-leaf = leaf-spine = spine-core = 8 x nodes cables.
TEST(BillOfMaterials, DgxB200SuperPodSixteenScalableUnits) {
  const Built b = bill_of("dgx-b200-superpod", 4096);
  const auto c = counts(b.bill);
  EXPECT_EQ(c.at("leaf switches"), 128);
  EXPECT_EQ(c.at("spine switches"), 128);
  EXPECT_EQ(c.at("core switches"), 64);
  EXPECT_EQ(c.at("access fibers"), 8 * 512);
  EXPECT_EQ(c.at("leaf-spine fibers"), 8 * 512);
  EXPECT_EQ(c.at("spine-core fibers"), 8 * 512);
}

// Oracle: DGX SuperPOD GB200 RA (RA-11338-001), one SU of 8 NVL72 racks: 4 spine-leaf groups
// (one per IB rail), each of 8 leaves (one per rack, 18 NICs each) and 6 spines: 32 leaves and
// 24 spines (topologies/gb200-nvl72.json sets fabric.spine_groups per_rail). The leaf-spine
// links follow from the RA's non-blocking leaves: 32 x 18 = 576. Each rack is its own node:
// leaves stand in a network rack beside it, so NIC links leave the rack on fiber.
TEST(BillOfMaterials, DgxGb200OneScalableUnit) {
  const Built b = bill_of("gb200-nvl72", 576);
  const auto c = counts(b.bill);
  EXPECT_EQ(c.at("servers"), 8);
  EXPECT_EQ(c.at("leaf switches"), 32);
  EXPECT_EQ(c.at("spine switches"), 24);
  EXPECT_EQ(c.at("access fibers"), 576);
  EXPECT_EQ(c.at("leaf-spine fibers"), 576);
  EXPECT_EQ(b.bill.floor.server_racks, 8);
  // The one shared spine set the builder wires without the RA's groups: 9 spines, every port used.
  const Built shared = bill_of("gb200-nvl72", 576, {"fabric.spine_groups=shared", "fabric.leaves_per_spine_group=null"});
  EXPECT_EQ(counts(shared.bill).at("spine switches"), 9);
}

// Oracle: Alibaba HPN's pod (Qian et al., SIGCOMM 2024; topologies/README.md): 15 segments of
// 128 hosts, 16 ToRs a segment (8 rails x 2 planes), 60 aggregation switches a plane. Both planes
// are billed: every NIC's two 200G ports take a fiber and a module each, two of them share a
// ToR's 400G port, and a ToR's 60 uplinks and their far ends sit in twin-port cages. Conservation:
// every wired switch port is half a module.
TEST(BillOfMaterials, HpnDualPlanePodCountsBothPlanes) {
  const Built b = bill_of("hpn-dual-plane", 15360);
  const auto c = counts(b.bill);
  EXPECT_EQ(c.at("servers"), 1920);
  EXPECT_EQ(c.at("leaf switches"), 15 * 16);
  EXPECT_EQ(c.at("spine switches"), 2 * 60);
  EXPECT_EQ(c.at("access fibers"), 15360 * 2);
  EXPECT_EQ(c.at("access transceivers (NIC end)"), 15360 * 2);
  EXPECT_EQ(c.at("leaf-spine fibers"), 15 * 16 * 60);
  long long switch_ports = 0;
  for (const auto& tier : b.summary.switch_tiers) switch_ports += tier.ports_used;
  EXPECT_EQ(c.at("access transceivers (switch end)") + c.at("leaf-spine transceivers (switch end)"), switch_ports / 2);
  // A 200G port cable is half a 400G switch port (splitter fibers): 64 ports, 32 modules a ToR.
  EXPECT_EQ(c.at("access transceivers (switch end)"), 15 * 16 * 32);
  EXPECT_EQ(run_of(b.bill, LinkKind::kAccess).switch_transceiver, "OSFP 800G twin-port 2xSR4 (MMA4Z00-NS)");
  EXPECT_EQ(b.bill.transceivers, 15360 * 2 + switch_ports / 2);
  EXPECT_EQ(b.bill.transceivers, b.summary.transceivers);
}

// Oracle: Meta's 24K cluster (Gangidi et al., SIGCOMM 2024): 8 AI zones of 192 racks (one RTSW
// each) and 18 CTSWs; the RTSW-server links are copper in the rack (the paper's DACs), every
// RTSW uplink is optical with one single-port module at each end (576-port modular CTSWs).
TEST(BillOfMaterials, MetaAiZonesTwentyFourThousandGpus) {
  const Built b = bill_of("meta-ai-zones", 24576);
  const auto c = counts(b.bill);
  EXPECT_EQ(c.at("leaf switches"), 8 * 192);
  EXPECT_EQ(c.at("spine switches"), 8 * 18);
  EXPECT_EQ(c.at("access cables"), 24576);
  EXPECT_EQ(c.count("access fibers"), 0u);
  EXPECT_EQ(c.at("leaf-spine fibers"), 8 * 192 * 18);
  EXPECT_EQ(c.at("leaf-spine transceivers (switch end)"), 2 * 8 * 192 * 18);
  EXPECT_EQ(c.at("spine-core transceivers (switch end)"), 2 * c.at("spine-core fibers"));
  EXPECT_EQ(b.summary.switch_tiers.size(), 3u);
}

// Power is the sum of the parts: count x planning power over every line, and the category
// totals add up to it.
TEST(BillOfMaterials, PowerIsTheSumOfItsParts) {
  const Built b = bill_of("dgx-h100-superpod", 1024);
  double watts = 0;
  for (const auto& line : b.bill.lines) {
    if (line.in_server) continue;
    ASSERT_TRUE(line.unit_power) << line.role;
    watts += line.unit_power->watts() * static_cast<double>(line.count);
  }
  EXPECT_NEAR(b.bill.power().watts(), watts, 1e-6);
  // 128 DGX at 10.2 kW, 48 QM9700 at 747 W, 1,024 single-port modules at 9 W and 1,536
  // twin-port modules at 17 W; fibers draw nothing.
  EXPECT_NEAR(b.bill.power().watts(), 128 * 10200.0 + 48 * 747.0 + 1024 * 9.0 + 1536 * 17.0, 1e-6);
  EXPECT_NEAR(b.bill.servers.power.watts(), 128 * 10200.0, 1e-6);
  EXPECT_TRUE(b.bill.fully_powered());
  // Priced: servers and switches; NVIDIA publishes no LinkX prices.
  EXPECT_NEAR(b.bill.servers.capex, 128 * 270000.0, 1e-3);
  EXPECT_NEAR(b.bill.switches.capex, 48 * 36000.0, 1e-3);
  EXPECT_GT(b.bill.optics.unpriced_lines, 0);
  EXPECT_FALSE(b.bill.fully_priced());
}

// Top of rack: a leaf takes 32 NICs = 4 DGX, one rack, so NIC-leaf links are copper in the rack
// and take no transceivers; leaf-spine links leave the rack on fiber.
TEST(BillOfMaterials, TopOfRackAccessIsCopperInTheRack) {
  const Built b = bill_of("dgx-h100-superpod", 1024, {"fabric.kind=top_of_rack", "fabric.nodes_per_su=null"});
  const LinkRun& access = run_of(b.bill, LinkKind::kAccess);
  EXPECT_EQ(access.length_class, "in rack");
  EXPECT_EQ(access.cable, "DAC passive copper");
  EXPECT_EQ(access.transceivers, 0);
  EXPECT_EQ(run_of(b.bill, LinkKind::kLeafSpine).cable, "Multimode fiber MPO-12/APC");
  const Built rail = bill_of("dgx-h100-superpod", 1024);
  EXPECT_EQ(rail.bill.transceivers - b.bill.transceivers, 1024 + 512);
}

// The floor model: longer rows and more rows make longer leaf-spine runs, and past 50 m the
// multimode optics give way to single-mode ones.
TEST(BillOfMaterials, LongRunsTakeSingleModeOptics) {
  FloorPlan floor;
  floor.racks_per_row = 4;
  floor.row_pitch_m = 8;
  const Built b = bill_of("dgx-h100-superpod", 8192, {}, floor);
  const LinkRun& up = run_of(b.bill, LinkKind::kLeafSpine);
  EXPECT_GT(up.length_m, 50);
  EXPECT_EQ(up.cable, "Single-mode fiber MPO-12/APC");
  EXPECT_EQ(up.switch_transceiver, "OSFP 800G twin-port 2xDR4 (MMS4X00-NM)");
  EXPECT_EQ(b.bill.floor.rows, (8192 / 8 / 4 + 3) / 4);
}

// A dragonfly group in one rack (an HPE Cray EX GPU cabinet: 128 nodes and the group's 32
// switches) keeps its local links inside it, on copper; spread over racks of 12 nodes, its 11
// racks side by side put them beyond copper's reach. Global links are fiber either way.
TEST(BillOfMaterials, AGroupInOneRackKeepsItsLocalLinksInIt) {
  FloorPlan cabinet;
  cabinet.servers_per_rack = 128;
  const Built in_cabinets = bill_of("slingshot-a100-dragonfly", 1024, {}, cabinet);
  const LinkRun& local = run_of(in_cabinets.bill, LinkKind::kLocal);
  EXPECT_EQ(local.length_class, "in rack");
  EXPECT_DOUBLE_EQ(local.length_m, cabinet.in_rack_m);
  EXPECT_EQ(local.cable, "DAC passive copper");
  EXPECT_EQ(local.transceivers, 0);
  EXPECT_EQ(in_cabinets.bill.floor.server_racks, 2);  // 256 nodes, two groups
  EXPECT_EQ(run_of(in_cabinets.bill, LinkKind::kGlobal).cable, "Multimode fiber MPO-12/APC");
  // Only the 16 global links between the two groups carry optics, one module at each end.
  EXPECT_EQ(in_cabinets.bill.transceivers, 2 * 16);
  FloorPlan racks;
  racks.servers_per_rack = 12;
  const Built in_racks = bill_of("slingshot-a100-dragonfly", 1024, {}, racks);
  const LinkRun& spread = run_of(in_racks.bill, LinkKind::kLocal);
  EXPECT_EQ(spread.length_class, "in row");
  EXPECT_DOUBLE_EQ(spread.length_m, racks.drop_m + 6 * racks.rack_width_m);  // half of 11 racks, rounded up
  EXPECT_EQ(spread.cable, "Multimode fiber MPO-12/APC");
  FloorPlan too_many;
  too_many.servers_per_rack = 257;
  EXPECT_THROW((void)bill_of("slingshot-a100-dragonfly", 1024, {}, too_many), InputError);
}

TEST(BillOfMaterials, MissingPartNamesIt) {
  try {
    (void)bill_of("dgx-h100-superpod", 64, {"server.name=DGX Z9"});
    FAIL() << "expected an InputError";
  } catch (const InputError& error) {
    EXPECT_EQ(error.message(), "server 'DGX Z9' (server.name) is not in the parts catalog: add it with --parts FILE");
  }
}

TEST(BillOfMaterials, NoTransceiverForTheRateNamesIt) {
  try {
    (void)bill_of("dgx-h100-superpod", 64, {"server.nics.bandwidth=200Gbps"});
    FAIL() << "expected an InputError";
  } catch (const InputError& error) {
    EXPECT_NE(error.message().find("no transceiver in the parts catalog carries 200Gbps"), std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace ctwin::fabric
