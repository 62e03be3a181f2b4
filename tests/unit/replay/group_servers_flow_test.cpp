// Per-group servers on the flow network (docs/heterogeneous.md, "Per-group servers"): the built
// fabric lays each node group's nodes out of its own server.
// - A "mixed" pool whose groups both name the file's server is the homogeneous flow run, to the
//   byte (CLI JSON), in either order.
// - The build: a group's nodes get its server's NVLink, PCIe and NIC-cable rates, the other
//   nodes the file's; a group server built unlike the file's (other NIC count) is one line, exit 2.
// - A group whose NICs have half the bandwidth: its stage's DP collectives on flow take what the
//   analytical network gives them (within 1 %), well above the file's server's; its sends wait
//   for the slower end (the half-NIC build's send time), on both networks.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/cli_runner.hpp"
#include "ctwin/core/json_reader.hpp"
#include "ctwin/fabric/fabric.hpp"
#include "ctwin/replay/training_step.hpp"

namespace ctwin::replay {
namespace {

using cli_testing::one_line_error;
using cli_testing::run_ctwin;

const std::string kServersRepo = CTWIN_SOURCE_DIR;

/// The default scenario (tp 2, pp 2, 8 H100 nodes) on two groups of 4 nodes, the first with
/// `server` (none: the file's), on `network`.
nlohmann::json two_groups(const nlohmann::json& server_a, const nlohmann::json& server_b, const std::string& network) {
  nlohmann::json s = load_json_file(kServersRepo + "/scenarios/default.json");
  s["cluster"] = load_json_file(kServersRepo + "/topologies/dgx-h100-superpod.json");
  nlohmann::json a{{"name", "a"}, {"gpu", "h100-sxm"}, {"nodes", 4}};
  nlohmann::json b{{"name", "b"}, {"gpu", "h100-sxm"}, {"nodes", 4}};
  if (!server_a.is_null()) a["server"] = server_a;
  if (!server_b.is_null()) b["server"] = server_b;
  s["cluster"]["node_groups"] = {a, b};
  s["network"] = network;
  return s;
}

nlohmann::json file_server() { return load_json_file(kServersRepo + "/topologies/dgx-h100-superpod.json")["server"]; }

nlohmann::json half_nic_server() {
  nlohmann::json server = file_server();
  server["nics"]["bandwidth"] = "200Gbps";
  return server;
}

/// The JSON report of `file` on flow without the fields naming the file and the pool: the step's figures.
std::string flow_report_json(const std::string& file) {
  const auto outcome = run_ctwin("run " + cli_testing::shell_quote(file) + " --format json");
  EXPECT_EQ(outcome.status, 0) << outcome.output;
  nlohmann::json report = nlohmann::json::parse(outcome.output);
  report.erase("scenario");
  report.erase("pool");
  return report.dump(2);
}

class GroupServersFlow : public cli_testing::TempDirTest {
 protected:
  Scenario load(const nlohmann::json& document, const std::vector<std::string>& overrides = {}) const {
    return parse_scenario(document, "pool.json", dir_, kServersRepo, overrides);
  }
};

TEST_F(GroupServersFlow, GroupsOnTheFilesServerAreTheHomogeneousFlowRunToTheByte) {
  nlohmann::json plain = load_json_file(kServersRepo + "/scenarios/default.json");
  plain["cluster"] = load_json_file(kServersRepo + "/topologies/dgx-h100-superpod.json");
  plain["network"] = "flow";
  const std::string expected = flow_report_json(write("plain.json", plain.dump()));
  ASSERT_NE(expected.find("step_time_s"), std::string::npos);
  nlohmann::json mixed = two_groups(file_server(), file_server(), "flow");
  EXPECT_EQ(flow_report_json(write("mixed.json", mixed.dump())), expected);
  mixed["pool"] = {{"order", {"b", "a"}}};
  EXPECT_EQ(flow_report_json(write("reversed.json", mixed.dump())), expected);
}

TEST_F(GroupServersFlow, AGroupsNodesAreBuiltFromItsServer) {
  const Scenario pooled = load(two_groups(half_nic_server(), nullptr, "flow"));
  const fabric::Fabric build(pool_build(pooled), 64);
  const fabric::Fabric plain(load(two_groups(nullptr, nullptr, "flow")).cluster, 64);
  ASSERT_EQ(build.links().size(), plain.links().size());
  for (int node = 0; node < 8; ++node) {
    const double expected_gbps = node < 4 ? 200 : 400;
    for (int nic = 0; nic < 8; ++nic) {
      EXPECT_DOUBLE_EQ(build.link(build.access_link(node, nic)).bandwidth.gigabits_per_second(), expected_gbps);
    }
    EXPECT_EQ(build.node_has_group_server(node), node < 4);
    for (fabric::LinkId local = 0; local < build.server().links().size(); ++local) {
      EXPECT_EQ(build.link(build.node_link(node, local)).bandwidth, plain.link(plain.node_link(node, local)).bandwidth);
    }
  }
  // The pool's order lays group b first: the half-NIC nodes are then 4 to 7.
  const Scenario reversed = load(two_groups(half_nic_server(), nullptr, "flow"), {"pool={\"order\": [\"b\", \"a\"]}"});
  const fabric::Fabric flipped(pool_build(reversed), 64);
  EXPECT_DOUBLE_EQ(flipped.link(flipped.access_link(0, 0)).bandwidth.gigabits_per_second(), 400);
  EXPECT_DOUBLE_EQ(flipped.link(flipped.access_link(4, 0)).bandwidth.gigabits_per_second(), 200);

  nlohmann::json four_nics = file_server();
  four_nics["nics"]["count"] = 4;
  const auto refused = run_ctwin("run " + write("four.json", two_groups(four_nics, nullptr, "flow").dump()));
  EXPECT_TRUE(one_line_error(refused, {"/node_groups", "'a'", "network flow"})) << refused.output;
  // The analytical network prices that group on a build of its own server, as before.
  EXPECT_EQ(run_ctwin("run " + write("four-analytical.json", two_groups(four_nics, nullptr, "analytical").dump())).status, 0);
}

SimTime stream_total(const StageWork& stage, Stream stream) {
  SimTime total{};
  for (const ChunkWork& chunk : stage.chunks) {
    for (const auto* ops : {&chunk.forward, &chunk.backward}) {
      for (const OpNode& op : *ops) total += op.stream == stream ? op.duration : SimTime{};
    }
  }
  for (const OpNode& op : stage.after_backward) total += op.stream == stream ? op.duration : SimTime{};
  return total;
}

TEST_F(GroupServersFlow, TheHalfNicGroupsCollectivesOnFlowMatchTheAnalyticalNetwork) {
  const std::vector<std::string> exposed{"overlap.dp_grad_reduce=false", "overlap.dp_param_gather=false"};
  const SimulatedStep flow = simulate_step(load(two_groups(half_nic_server(), nullptr, "flow"), exposed));
  const SimulatedStep analytical = simulate_step(load(two_groups(half_nic_server(), nullptr, "analytical"), exposed));
  const SimulatedStep plain = simulate_step(load(two_groups(nullptr, nullptr, "flow"), exposed));
  ASSERT_TRUE(flow.shared_fabric);
  const double flow_dp = stream_total(flow.work.stages[0], Stream::kDp).seconds();
  const double analytical_dp = stream_total(analytical.work.stages[0], Stream::kDp).seconds();
  // Not vacuous: half the NIC bandwidth costs the stage's DP collectives far more than the tolerance.
  EXPECT_GT(flow_dp, 1.5 * stream_total(plain.work.stages[0], Stream::kDp).seconds());
  EXPECT_NEAR(flow_dp / analytical_dp, 1.0, 0.01);
  EXPECT_NEAR(flow.report.breakdown.exposed_comm_s.dp / analytical.report.breakdown.exposed_comm_s.dp, 1.0, 0.01);
  EXPECT_NEAR(flow.report.step_time_s / analytical.report.step_time_s, 1.0, 0.01);
  // Sends between the groups wait for the half-NIC end: the half-NIC build's send, both ways.
  nlohmann::json half_build = two_groups(nullptr, nullptr, "analytical");
  half_build["cluster"]["server"] = half_nic_server();
  half_build["cluster"].erase("node_groups");
  const SimulatedStep all_half = simulate_step(load(half_build, exposed));
  EXPECT_GT(all_half.work.p2p, plain.work.p2p);
  EXPECT_EQ(analytical.work.send_time(0, 1), all_half.work.p2p);
  EXPECT_EQ(analytical.work.send_time(1, 0), all_half.work.p2p);
}

}  // namespace
}  // namespace ctwin::replay
