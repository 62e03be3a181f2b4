// ctwin size, ctwin fabric and ctwin run from the command line: warnings where a check applies,
// the same bytes as before where none does, and bad input as one line with exit status 2.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli/cli_runner.hpp"

namespace ctwin::cli_testing {
namespace {

class SizeCli : public TempDirTest {};

const std::string kH100 = "--cluster " + topology("dgx-h100-superpod") + " --gpus 256";

TEST_F(SizeCli, TablesJsonAndCsvOfTheSameOptions) {
  const Outcome table = run_ctwin("size " + kH100 + " --vary fabric.oversubscription.leaf=1,2 --no-collectives");
  ASSERT_EQ(table.status, 0) << table.output;
  EXPECT_NE(table.output.find("dgx-h100-superpod at 256 GPUs: 2 build options"), std::string::npos) << table.output;
  EXPECT_NE(table.output.find("leaf_ports_idle: each leaf uses 32 down + 16 up of its 64 ports"), std::string::npos);
  const Outcome json = run_ctwin("size " + kH100 + " --vary fabric.oversubscription.leaf=1,2 --no-collectives --format json");
  ASSERT_EQ(json.status, 0) << json.output;
  const auto doc = nlohmann::json::parse(json.output);
  ASSERT_EQ(doc["options"].size(), 2u);
  EXPECT_EQ(doc["options"][0]["switches_per_tier"]["leaf"], 8);
  EXPECT_EQ(doc["options"][0]["warnings"].size(), 0u);
  EXPECT_EQ(doc["options"][1]["warnings"][0]["check"], "leaf_ports_idle");
  const Outcome csv = run_ctwin("size " + kH100 + " --vary fabric.oversubscription.leaf=1,2 --no-collectives --format csv");
  ASSERT_EQ(csv.status, 0) << csv.output;
  EXPECT_EQ(std::count(csv.output.begin(), csv.output.end(), '\n'), 3);  // header + 2 options
  EXPECT_EQ(csv.output.rfind("fabric.oversubscription.leaf,leaf,spine,core,", 0), 0u) << csv.output;
}

// Issue 35: a GB200 build's power printed as "1252+?" kW: the rack had no power figure. It takes
// NVIDIA's SU figure (1.2 MW for 8 racks), so the build's IT power is whole.
TEST_F(SizeCli, Gb200RacksHaveAPowerFigure) {
  const std::string gb200 = "size --cluster " + topology("gb200-nvl72") + " --gpus 1152 --no-collectives";
  const Outcome table = run_ctwin(gb200);
  ASSERT_EQ(table.status, 0) << table.output;
  EXPECT_NE(table.output.find("gb200-nvl72 at 1152 GPUs: 1 build option;"), std::string::npos) << table.output;
  const Outcome json = run_ctwin(gb200 + " --format json");
  ASSERT_EQ(json.status, 0) << json.output;
  const auto bill = nlohmann::json::parse(json.output)["options"][0]["bill"];
  EXPECT_TRUE(bill["power_kW"]["fully_powered"].get<bool>());
  EXPECT_DOUBLE_EQ(bill["capex"]["servers"]["power_kW"].get<double>(), 16 * 150.0);  // 16 racks of 72 GPUs
}

TEST_F(SizeCli, BadInputIsOneLine) {
  EXPECT_TRUE(one_line_error(run_ctwin("size " + kH100 + " --vary fabric.colour=red"), {"colour"}));
  EXPECT_TRUE(one_line_error(run_ctwin("size " + kH100 + " --vary fabric.oversubscription.leaf="), {"--vary"}));
  EXPECT_TRUE(one_line_error(run_ctwin("size " + kH100 + " --set server.name=Z9"), {"server 'Z9'", "--parts"}));
  const std::string no_currency = write("parts.json", R"({"parts": [{"name": "DGX H100", "kind": "server",
      "price": {"amount": 300000, "basis": "quote", "source": "q", "date": "2026"}, "sources": ["q"], "date": "2026"}]})");
  EXPECT_TRUE(one_line_error(run_ctwin("size " + kH100 + " --parts " + no_currency), {"parts.json", "/parts/0/price/currency"}));
  EXPECT_TRUE(one_line_error(run_ctwin("size " + kH100 + " --racks-per-row 0"), {"--racks-per-row"}));
  EXPECT_TRUE(one_line_error(run_ctwin("size " + kH100 + " --workload no-such.json"), {"no-such.json"}));
  EXPECT_TRUE(one_line_error(run_ctwin("size --cluster " + topology("dgx-h100-superpod") + " --gpus 0"), {"--gpus"}));
}

// 800G NICs on a DGX H100 are allowed on purpose (to see what the slot costs) and warned about
// in fabric and run, in the table and in the JSON; a sound build's JSON has no warnings key.
TEST_F(SizeCli, FabricAndRunShowWarnings) {
  const std::string fabric = "fabric --cluster " + topology("dgx-h100-superpod") + " --gpus 64";
  const Outcome plain = run_ctwin(fabric + " --format json");
  ASSERT_EQ(plain.status, 0);
  EXPECT_FALSE(nlohmann::json::parse(plain.output).contains("warnings"));
  const Outcome fast = run_ctwin(fabric + " --set server.nics.bandwidth=800Gbps --format json");
  ASSERT_EQ(fast.status, 0) << fast.output;
  const auto doc = nlohmann::json::parse(fast.output);
  EXPECT_EQ(doc["warnings"][0]["check"], "nic_above_pcie");
  const Outcome table = run_ctwin(fabric + " --set server.nics.bandwidth=800Gbps");
  EXPECT_NE(table.output.find("\nwarnings\n  nic_above_pcie: a 800 Gb/s NIC sits behind a PCIe Gen5 x16 link"),
            std::string::npos)
      << table.output;
  const Outcome run = run_ctwin("run " + std::string(CTWIN_SOURCE_DIR) +
                                "/scenarios/default.json --network analytical --set cluster.server.nics.bandwidth=800Gbps");
  ASSERT_EQ(run.status, 0) << run.output;
  EXPECT_NE(run.output.find("nic_above_pcie"), std::string::npos) << run.output;
  // Top of rack by override on a rail-optimized topology runs, and says what it ignored.
  const Outcome tor = run_ctwin(fabric + " --set fabric.kind=top_of_rack");
  ASSERT_EQ(tor.status, 0) << tor.output;
  EXPECT_NE(tor.output.find("ignored_field: fabric.nodes_per_su = 32 is ignored"), std::string::npos) << tor.output;
}

}  // namespace
}  // namespace ctwin::cli_testing
