#include "ctwin/studies/size.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "ctwin/api/build_warnings.hpp"
#include "ctwin/api/report_json.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/studies/size_parts.hpp"
#include "source_root.hpp"

namespace ctwin::api {
namespace {

SizeQuery small_query() {
  SizeQuery query;
  query.cluster = kRoot + "/topologies/dgx-h100-superpod.json";
  query.gpus = 256;
  query.vary = {parse_grid_axis("fabric.oversubscription.leaf=1,2", "--vary"),
                parse_grid_axis("fabric.kind=rail_optimized,top_of_rack", "--vary")};
  query.workloads = {kRoot + "/scenarios/default.json"};
  query.jobs = 2;
  query.ecmp_seeds = 1;  // seeds are EcmpSeedsMeasureTheTieTolerance's; one keeps the rest quick
  return query;
}

std::string error_of(const SizeQuery& query) {
  EvalContext context;
  try {
    (void)evaluate_size(query, context);
  } catch (const InputError& error) {
    return error.what();
  }
  return "";
}

// Oracle: each option's counts are those `ctwin fabric` gives for the same build, its power
// the sum of its bill's lines, and its workload points the scaling study of the same cluster.
TEST(Size, EachOptionIsItsOwnBuild) {
  EvalContext context;
  const SizeResult result = evaluate_size(small_query(), context);
  ASSERT_EQ(result.options.size(), 4u);
  EXPECT_EQ(result.options[1].values, (std::vector<std::string>{"1", "top_of_rack"}));
  EXPECT_EQ(result.options[2].values, (std::vector<std::string>{"2", "rail_optimized"}));
  for (const SizeOption& option : result.options) {
    ASSERT_TRUE(option.invalid.empty()) << option.invalid;
    Build build;
    build.cluster = small_query().cluster;
    build.gpus = 256;
    build.changes = {{"fabric.oversubscription.leaf", std::stoi(option.values[0])}, {"fabric.kind", option.values[1]}};
    EvalContext fresh;
    EXPECT_EQ(fabric_summary_json(option.summary).dump(), fabric_summary_json(evaluate_fabric(build, fresh)).dump());
    double watts = 0;
    for (const auto& line : option.bill.lines) watts += line.power() ? line.power()->watts() : 0;
    EXPECT_NEAR(option.bill.power().watts(), watts, 1e-6);
    ASSERT_EQ(option.workloads.size(), 1u);
    const auto& points = option.workloads[0].points;
    ASSERT_EQ(points.size(), 4u);
    EXPECT_EQ(points.front().gpus, 32);
    EXPECT_EQ(points.back().gpus, 256);
    EXPECT_EQ(points.back().global_batch, 128 * 256 / 64);  // grown with the data-parallel width
    EXPECT_DOUBLE_EQ(points.front().linearity, 1.0);
    ASSERT_TRUE(option.all_reduce_busbw_GBps);
    EXPECT_GT(*option.all_reduce_busbw_GBps, 0);
  }
  // 2:1 takes fewer switches than 1:1, and the leaves of 2:1 rail-optimized leave ports idle.
  EXPECT_LT(result.options[2].bill.switch_count, result.options[0].bill.switch_count);
  bool idle = false;
  for (const auto& warning : result.options[2].warnings) idle = idle || warning.check == "leaf_ports_idle";
  EXPECT_TRUE(idle);
  // Top of rack over a rail-optimized topology: nodes_per_su is named as ignored.
  ASSERT_FALSE(result.options[1].warnings.empty());
  EXPECT_EQ(result.options[1].warnings[0].check, "ignored_field");
}

// Same bytes whatever the number of jobs.
TEST(Size, DeterministicAcrossJobs) {
  SizeQuery one = small_query();
  one.jobs = 1;
  SizeQuery three = small_query();
  three.jobs = 3;
  EvalContext a, b;
  EXPECT_EQ(size_json(evaluate_size(one, a)).dump(), size_json(evaluate_size(three, b)).dump());
}

// Pareto: with every part priced (a user file gives the optics), an option is on the front
// when no other costs no more and delivers no less; cost per PFLOP/s is capex over delivered
// model FLOP/s.
TEST(Size, ParetoFrontAndCostPerPflops) {
  const std::filesystem::path file =
      std::filesystem::temp_directory_path() / ("ctwin-size-parts-" + std::to_string(::getpid()) + ".json");
  std::ofstream(file) << R"json({"parts": [
    {"name": "OSFP 400G SR4 (MMA4Z00-NS400)", "kind": "transceiver", "bandwidth": "400Gbps", "ports": 1, "reach": "50m", "power_max": "9W",
     "price": {"amount": 700, "currency": "USD", "basis": "test", "source": "test", "date": "2026"}, "sources": ["test"], "date": "2026"},
    {"name": "OSFP 800G twin-port 2xSR4 (MMA4Z00-NS)", "kind": "transceiver", "bandwidth": "400Gbps", "ports": 2, "reach": "50m", "power_max": "17W",
     "price": {"amount": 1400, "currency": "USD", "basis": "test", "source": "test", "date": "2026"}, "sources": ["test"], "date": "2026"},
    {"name": "Multimode fiber MPO-12/APC", "kind": "cable", "medium": "fiber", "reach": "50m", "power_max": "0W",
     "price": {"amount": 100, "currency": "USD", "basis": "test", "source": "test", "date": "2026"}, "sources": ["test"], "date": "2026"},
    {"name": "ACC active copper", "kind": "cable", "medium": "copper", "reach": "5m", "power_max": "3W",
     "price": {"amount": 300, "currency": "USD", "basis": "test", "source": "test", "date": "2026"}, "sources": ["test"], "date": "2026"},
    {"name": "DAC passive copper", "kind": "cable", "medium": "copper", "reach": "3m", "power_max": "0W",
     "price": {"amount": 150, "currency": "USD", "basis": "test", "source": "test", "date": "2026"}, "sources": ["test"], "date": "2026"}]})json";
  SizeQuery query = small_query();
  query.parts = file.string();
  query.ecmp_seeds = 2;
  // The front and the cost per PFLOP/s read only the full-scale point: the smaller scales and the
  // collectives (EachOptionIsItsOwnBuild's) took more than half of its CPU (1.06 s against 0.46 s, Release).
  query.scales = 1;
  query.collectives = false;
  EvalContext context;
  const SizeResult result = evaluate_size(query, context);
  std::filesystem::remove(file);
  EXPECT_EQ(result.currency, "USD");
  // Ranked on the mean over the seeds; options tie within the sample's error or overlapping seeds.
  double widest = 0;
  for (const SizeOption& option : result.options) widest = std::max(widest, option.hash_spread());
  EXPECT_EQ(result.tie_tolerance, 0.006);
  int on_front = 0;
  for (const SizeOption& option : result.options) {
    ASSERT_TRUE(option.bill.fully_priced());
    const auto& mine = option.workloads[0].points.back();
    ASSERT_TRUE(option.cost_per_pflops);
    EXPECT_NEAR(*option.cost_per_pflops, option.bill.capex() / (mine.model_tflops_per_gpu * 256 / 1000), 1e-6);
    bool dominated = false;
    for (const SizeOption& other : result.options) {
      const bool tied = other.tie_group == option.tie_group;
      if (tied) {
        // Same group: within the tolerance of the group's fastest, so within twice it of each other.
        EXPECT_NEAR(other.ranked_tokens_per_s() / option.ranked_tokens_per_s(), 1.0, 2 * std::max(widest, result.tie_tolerance));
      } else {
        EXPECT_GT(std::abs(other.ranked_tokens_per_s() / option.ranked_tokens_per_s() - 1), 0.0);
      }
      dominated = dominated || (other.bill.capex() <= option.bill.capex() &&
                                (tied ? other.bill.capex() < option.bill.capex()
                                      : other.ranked_tokens_per_s() > option.ranked_tokens_per_s()));
    }
    EXPECT_EQ(option.pareto, !dominated);
    on_front += option.pareto ? 1 : 0;
  }
  EXPECT_GE(on_front, 1);
}

// Issue 35: on `analytical` every collective runs alone, so a 4:1 leaf delivers what a 1:1 leaf
// does and the options tie; on `flow` (the default) the data-parallel rings share the oversubscribed
// uplinks and the 4:1 build is slower, in a group of its own.
TEST(Size, FlowSeesTheOversubscribedLeaves) {
  SizeQuery query = small_query();
  query.vary = {parse_grid_axis("fabric.oversubscription.leaf=1,4", "--vary")};
  query.changes = {{"fabric.kind", "top_of_rack"}};
  query.scales = 1;
  query.collectives = false;
  EvalContext context;
  query.ecmp_seeds = 4;  // no hash seed of the 4:1 build may reach the 1:1 build's worst
  const SizeResult flow = evaluate_size(query, context);
  query.ecmp_seeds = 1;
  query.network = network::ModelKind::kAnalytical;
  const SizeResult analytical = evaluate_size(query, context);
  auto tokens = [](const SizeResult& result, std::size_t i) {
    return result.options.at(i).workloads.at(0).points.back().tokens_per_s;
  };
  EXPECT_EQ(flow.network, network::ModelKind::kFlow);
  EXPECT_LT(tokens(flow, 1), tokens(flow, 0) * (1 - flow.tie_tolerance));
  EXPECT_NE(flow.options[0].tie_group, flow.options[1].tie_group);
  // Analytical sees only each ring's own slowest hop: under its 1 % resolution, one tie.
  EXPECT_NEAR(tokens(analytical, 1) / tokens(analytical, 0), 1.0, analytical.tie_tolerance);
  EXPECT_EQ(analytical.options[0].tie_group, analytical.options[1].tie_group);
  EXPECT_EQ(size_json(analytical)["network"], "analytical");
  EXPECT_EQ(size_json(flow)["flow_sample"], "su");
}

// --ecmp-seeds: seed 0 is the option's own figure, the others re-draw the ECMP hash, and the widest
// spread (never below the sample's own resolution) becomes the tie tolerance.
TEST(Size, EcmpSeedsMeasureTheTieTolerance) {
  SizeQuery query = small_query();
  query.vary = {parse_grid_axis("fabric.oversubscription.leaf=1,4", "--vary")};
  query.changes = {{"fabric.kind", "top_of_rack"}};
  query.scales = 1;
  query.collectives = false;
  query.ecmp_seeds = 1;
  EvalContext context;
  const SizeResult once = evaluate_size(query, context);
  query.ecmp_seeds = 3;
  const SizeResult seeded = evaluate_size(query, context);
  EXPECT_EQ(size_json(seeded)["ecmp_seeds"], 3);
  EXPECT_FALSE(size_json(once).contains("ecmp_seeds"));
  EXPECT_FALSE(size_json(once)["options"][0].contains("hash_spread"));
  for (std::size_t i = 0; i < seeded.options.size(); ++i) {
    const SizeOption& option = seeded.options[i];
    ASSERT_EQ(option.tokens_per_s_by_seed.size(), 3U);
    EXPECT_EQ(option.tokens_per_s_by_seed[0], once.options[i].workloads[0].points.back().tokens_per_s);
    EXPECT_EQ(option.workloads[0].points.back().tokens_per_s, once.options[i].workloads[0].points.back().tokens_per_s);
    const auto [low, high] = std::minmax_element(option.tokens_per_s_by_seed.begin(), option.tokens_per_s_by_seed.end());
    EXPECT_DOUBLE_EQ(option.hash_spread(), (*high - *low) / *high);
    EXPECT_NEAR(option.ranked_tokens_per_s(),
                (option.tokens_per_s_by_seed[0] + option.tokens_per_s_by_seed[1] + option.tokens_per_s_by_seed[2]) / 3, 1e-6);
  }
  // 4:1 leaves put flows of several rings on each uplink: some seed must move a step there.
  EXPECT_GT(seeded.options[1].hash_spread(), 0);
  EXPECT_EQ(seeded.tie_tolerance, 0.006);
  // Two options tie exactly when their means are within the floor or their ranges over the seeds overlap.
  const auto& a = seeded.options[0].tokens_per_s_by_seed;
  const auto& b = seeded.options[1].tokens_per_s_by_seed;
  const bool a_faster = seeded.options[0].ranked_tokens_per_s() >= seeded.options[1].ranked_tokens_per_s();
  const auto& fast = a_faster ? a : b;
  const auto& slow = a_faster ? b : a;
  const bool close = std::min(seeded.options[0].ranked_tokens_per_s(), seeded.options[1].ranked_tokens_per_s()) >=
                     std::max(seeded.options[0].ranked_tokens_per_s(), seeded.options[1].ranked_tokens_per_s()) * (1 - 0.006);
  const bool overlap = *std::max_element(slow.begin(), slow.end()) >= *std::min_element(fast.begin(), fast.end());
  EXPECT_EQ(seeded.options[0].tie_group == seeded.options[1].tie_group, close || overlap);
  // One seed measures nothing: the spread measured on the 10k example stands in.
  EXPECT_EQ(once.tie_tolerance, default_tie_tolerance(network::ModelKind::kFlow, replay::FlowSample::kScalableUnit));
  EXPECT_GT(once.tie_tolerance, 0.006);
  query.ecmp_seeds.reset();
  EXPECT_EQ(evaluate_size(query, context).ecmp_seeds, 4);
  query.ecmp_seeds = 0;
  EXPECT_EQ(error_of(query), "--ecmp-seeds: must be 1 to 16");
  query.ecmp_seeds = 2;
  query.network = network::ModelKind::kAnalytical;
  EXPECT_EQ(error_of(query), "--ecmp-seeds: needs a workload on the flow network (analytical routes no flows)");
}

TEST(Size, OptionsOfDifferentTopologyFilesSitSideBySide) {
  // `--vary cluster=...`: a dragonfly and a fat tree of the same GPUs as two options of one table,
  // each what `size` gives for its file alone, the dragonfly's alltoall held by its global links.
  SizeQuery query;
  query.cluster = kRoot + "/topologies/slingshot-a100-dragonfly.json";
  query.gpus = 1024;
  query.vary = {parse_grid_axis("cluster=" + kRoot + "/topologies/slingshot-a100-dragonfly.json," + kRoot +
                                    "/topologies/dgx-a100-superpod.json",
                                "--vary")};
  EvalContext context;
  const SizeResult both = evaluate_size(query, context);
  ASSERT_EQ(both.options.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    const SizeOption& option = both.options[i];
    ASSERT_TRUE(option.invalid.empty()) << option.invalid;
    SizeQuery alone = query;
    alone.cluster = query.vary[0].values[i].get<std::string>();
    alone.vary.clear();
    // The same context: a collective of the same build is a cache hit, one of another build is not.
    const SizeOption own = evaluate_size(alone, context).options.at(0);
    EXPECT_EQ(fabric_summary_json(option.summary).dump(), fabric_summary_json(own.summary).dump());
    EXPECT_EQ(option.all_reduce_busbw_GBps, own.all_reduce_busbw_GBps);
    EXPECT_EQ(option.alltoall_busbw_GBps, own.alltoall_busbw_GBps);
  }
  ASSERT_TRUE(both.options[0].alltoall_busbw_GBps && both.options[1].alltoall_busbw_GBps);
  EXPECT_LT(*both.options[0].alltoall_busbw_GBps, 0.2 * *both.options[1].alltoall_busbw_GBps);
  query.vary = {parse_grid_axis("cluster=4", "--vary")};
  EXPECT_NE(error_of(query).find("--vary"), std::string::npos) << error_of(query);
}

// Issue 38 item 4: the dragonfly against a fat tree of its own parts at its full 33 groups. The
// tree tapered 4:1 needs no more of any part than the dragonfly (so costs no more at any prices)
// with a group per Cray EX cabinet and in racks of 12 alike; the 3:1 tree is undecided in cabinets
// (fewer switches and copper cables, more fibers and optics). docs/size.md prints these tables.
TEST(Size, AFatTreeOfTheDragonflysPartsCostsNoMoreAtAnyPrices) {
  const std::string dragonfly = kRoot + "/topologies/slingshot-a100-dragonfly.json";
  const std::string tree = kRoot + "/topologies/slingshot-a100-fat-tree.json";
  EvalContext context;
  std::vector<SizeOption> in_cabinets;
  for (const int servers_per_rack : {128, 12}) {
    SCOPED_TRACE(servers_per_rack);
    SizeQuery query;
    query.cluster = dragonfly;
    query.gpus = 16896;
    query.floor.servers_per_rack = servers_per_rack;
    query.collectives = servers_per_rack == 128;  // the collectives do not depend on the floor
    query.vary = {parse_grid_axis("cluster=" + dragonfly + "," + tree, "--vary")};
    const SizeResult both = evaluate_size(query, context);
    ASSERT_EQ(both.options.size(), 2u);
    for (const auto& option : both.options) ASSERT_TRUE(option.invalid.empty()) << option.invalid;
    EXPECT_EQ(both.options[1].costs_no_more_than, (std::vector<std::size_t>{0}));
    EXPECT_TRUE(both.options[0].costs_no_more_than.empty());
    if (servers_per_rack == 128) in_cabinets = both.options;
  }
  ASSERT_EQ(in_cabinets.size(), 2u);
  EXPECT_GT(*in_cabinets[1].all_reduce_busbw_GBps, *in_cabinets[0].all_reduce_busbw_GBps);
  EXPECT_GT(*in_cabinets[1].alltoall_busbw_GBps, *in_cabinets[0].alltoall_busbw_GBps);
  SizeQuery three_to_one;
  three_to_one.cluster = tree;
  three_to_one.gpus = 16896;
  three_to_one.floor.servers_per_rack = 128;
  three_to_one.collectives = false;
  three_to_one.changes = {{"fabric.oversubscription.leaf", 3}};
  const SizeOption taper3 = evaluate_size(three_to_one, context).options.at(0);
  ASSERT_TRUE(taper3.invalid.empty()) << taper3.invalid;
  EXPECT_FALSE(needs_no_more_parts(taper3.bill, in_cabinets[0].bill));
  EXPECT_FALSE(needs_no_more_parts(in_cabinets[0].bill, taper3.bill));
}

// Seed 003's two power figures: FLOP/s per watt is the first workload's delivered model FLOP/s
// over the build's IT power, and facility power is IT power times the PUE given.
TEST(Size, FlopsPerWattAndFacilityPowerAreTheirClosedForms) {
  SizeQuery query;
  query.cluster = kRoot + "/topologies/dgx-h100-superpod.json";
  query.gpus = 64;
  query.workloads = {kRoot + "/scenarios/default.json"};
  query.network = network::ModelKind::kAnalytical;
  query.scales = 1;
  query.collectives = false;
  query.pue = 1.25;
  EvalContext context;
  const SizeResult result = evaluate_size(query, context);
  const SizeOption& option = result.options.at(0);
  ASSERT_TRUE(option.invalid.empty()) << option.invalid;
  const SizeWorkloadPoint& full = option.workloads.at(0).points.back();
  ASSERT_TRUE(option.gflops_per_watt.has_value());
  EXPECT_DOUBLE_EQ(*option.gflops_per_watt, full.model_tflops_per_gpu * 1e3 * 64 / option.bill.power().watts());
  ASSERT_TRUE(option.facility_power_kW.has_value());
  EXPECT_DOUBLE_EQ(*option.facility_power_kW, option.bill.power().kilowatts() * 1.25);
  query.pue.reset();
  query.workloads.clear();
  const SizeOption bare = evaluate_size(query, context).options.at(0);
  EXPECT_FALSE(bare.gflops_per_watt.has_value());
  EXPECT_FALSE(bare.facility_power_kW.has_value());
  query.pue = 0.9;
  EXPECT_EQ(error_of(query), "--pue: must be from 1 to 3 (facility energy over IT energy)");
}

TEST(Size, BadInputNamesItsFlag) {
  SizeQuery query = small_query();
  query.vary.push_back(parse_grid_axis("fabric.colour=red", "--vary"));
  EXPECT_NE(error_of(query).find("colour"), std::string::npos) << error_of(query);
  query = small_query();
  query.vary = {parse_grid_axis("server.nics.bandwidth=400", "--vary")};
  EXPECT_NE(error_of(query).find("bandwidth"), std::string::npos) << error_of(query);
  query = small_query();
  query.changes = {{"server.name", "DGX Z9"}};
  EXPECT_NE(error_of(query).find("server 'DGX Z9' (server.name) is not in the parts catalog"), std::string::npos)
      << error_of(query);
  query = small_query();
  query.parts = "no-such-parts.json";
  EXPECT_NE(error_of(query).find("no-such-parts.json"), std::string::npos) << error_of(query);
  query = small_query();
  query.gpus = 0;
  EXPECT_EQ(error_of(query), "--gpus: must be at least 1");
  query = small_query();
  query.tie_tolerance = 2;
  EXPECT_EQ(error_of(query), "--tie-tolerance: must be from 0 to 0.5 (a share of tokens/s, 0.01 for 1 %)");
  query.tie_tolerance = std::nan("");
  EXPECT_EQ(error_of(query), "--tie-tolerance: must be from 0 to 0.5 (a share of tokens/s, 0.01 for 1 %)");
  query = small_query();
  query.network = network::ModelKind::kSimgrid;
  EXPECT_EQ(error_of(query), "--network: a workload's step runs on analytical or flow");
}

// TP across nodes: the split's warning, with the NIC and NVLink rates.
TEST(Size, TensorParallelAcrossNodesIsWarned) {
  EvalContext context;
  const auto result = evaluate(Scenario::load(kRoot + "/scenarios/default.json")
                                   .with("network", "analytical")
                                   .with("parallel.tp", 16)
                                   .with("parallel.pp", 1)
                                   .with("model.kv_heads", 16),
                               context);
  const auto warnings = step_warnings(result.scenario);
  ASSERT_FALSE(warnings.empty());
  EXPECT_EQ(warnings.back().check, "tp_across_nodes");
  EXPECT_EQ(warnings.back().message,
            "tp 16 spans 2 nodes of 8 GPUs: every tensor-parallel collective crosses the scale-out fabric at 50 GB/s "
            "per GPU instead of NVLink's 450 GB/s");
  EXPECT_EQ(step_report_json(result.scenario, result.step.report)["warnings"][0]["check"], "tp_across_nodes");
  // The bundled scenario itself draws none, so its report keeps its bytes.
  const auto plain = evaluate(Scenario::load(kRoot + "/scenarios/default.json").with("network", "analytical"), context);
  EXPECT_TRUE(step_warnings(plain.scenario).empty());
  EXPECT_FALSE(step_report_json(plain.scenario, plain.step.report).contains("warnings"));
}

// Issue 35: a scaling study carries each size's build and split warnings, as `run` prints them
// beside its step; a sound split's points carry an empty list.
TEST(ScaleWarnings, EverySizeCarriesItsWarnings) {
  EvalContext context;
  ScalingOptions options;
  options.gpus = {32, 64};
  const Scenario wide = Scenario::load(kRoot + "/scenarios/default.json")
                            .with("network", "analytical")
                            .with("parallel.tp", 16)
                            .with("parallel.pp", 1)
                            .with("model.kv_heads", 16);
  const auto study = evaluate_scaling(wide, context, options);
  for (const auto& point : study.points) {
    ASSERT_TRUE(point.invalid.empty()) << point.invalid;
    ASSERT_FALSE(point.warnings.empty());
    EXPECT_EQ(point.warnings.back().check, "tp_across_nodes");
  }
  EXPECT_EQ(scaling_json(study)["points"][1]["warnings"][0]["check"], "tp_across_nodes");
  const auto sound = evaluate_scaling(Scenario::load(kRoot + "/scenarios/default.json").with("network", "analytical"),
                                      context, options);
  EXPECT_EQ(scaling_json(sound)["points"][0]["warnings"], nlohmann::json::array());
}

}  // namespace
}  // namespace ctwin::api
