// Where ranks sit (placement.hpp): the domain-aligned map against its closed form, the contiguous
// map's straddling groups counted by hand, explicit lists checked; and the oracle of issue 43: a
// step whose one EP group straddles two NVLink domains, alone on the fabric, takes the same time
// on `analytical` (each group priced where it sits) as on `flow` (its traffic on the real build).

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ctwin/core/error.hpp"
#include "ctwin/replay/placement.hpp"
#include "ctwin/replay/training_step.hpp"

namespace ctwin::replay {
namespace {

PlacementSpec policy(PlacementPolicy p) {
  PlacementSpec spec;
  spec.policy = p;
  return spec;
}

TEST(Placement, DomainAlignedPutsWholeGroupsInEachDomainAndLeavesTheRestIdle) {
  // EP 64 on 72-GPU racks, 256 ranks: 64 ranks per rack, rack d from GPU 72·d.
  const Placement p(policy(PlacementPolicy::kDomainAligned), 256, 64, 72, "s.json");
  EXPECT_FALSE(p.identity());
  for (std::int64_t r = 0; r < 256; ++r) EXPECT_EQ(p.gpu(r), r / 64 * 72 + r % 64) << r;
  EXPECT_EQ(p.cluster_gpus(), 3 * 72 + 64);
  EXPECT_EQ(p.domains(), 4);
  EXPECT_EQ(p.idle_gpus(), 4 * 72 - 256);
  EXPECT_EQ(p.straddling_blocks(), 0);
  // EP 16: four groups per rack, 8 GPUs idle in each.
  const Placement sixteen(policy(PlacementPolicy::kDomainAligned), 256, 16, 72, "s.json");
  EXPECT_EQ(sixteen.gpu(64), 72);
  EXPECT_EQ(sixteen.straddling_blocks(), 0);
}

TEST(Placement, DomainAlignedStartsAGroupLargerThanADomainOnADomainBoundary) {
  const Placement p(policy(PlacementPolicy::kDomainAligned), 256, 128, 72, "s.json");
  EXPECT_EQ(p.gpu(127), 127);
  EXPECT_EQ(p.gpu(128), 144);  // the second group takes racks 2 and 3
  EXPECT_EQ(p.straddling_blocks(), 2);  // larger than a domain: unavoidable
}

TEST(Placement, WhereGroupsDivideTheDomainEveryPolicyIsContiguous) {
  for (auto kind : {PlacementPolicy::kDomainAligned, PlacementPolicy::kContiguous}) {
    const Placement p(policy(kind), 1024, 8, 8, "s.json");
    EXPECT_TRUE(p.identity());
    EXPECT_EQ(p.cluster_gpus(), 1024);
    EXPECT_EQ(p.idle_gpus(), 0);
    const Placement nvl(policy(kind), 144, 8, 72, "s.json");
    EXPECT_TRUE(nvl.identity());
  }
}

TEST(Placement, ContiguousLetsGroupsStraddleDomains) {
  // Groups of 64 on 72-GPU racks: ranks 64..127 span racks 0 and 1, 128..191 racks 1 and 2,
  // 192..255 racks 2 and 3; only the first group fits one rack.
  const Placement p(policy(PlacementPolicy::kContiguous), 256, 64, 72, "s.json");
  EXPECT_TRUE(p.identity());
  EXPECT_EQ(p.straddling_blocks(), 3);
  EXPECT_EQ(p.cluster_gpus(), 256);
  EXPECT_EQ(p.idle_gpus(), 4 * 72 - 256);
}

TEST(Placement, ExplicitListGivesEachRankItsGpu) {
  PlacementSpec spec = policy(PlacementPolicy::kExplicit);
  spec.gpus = {2, 3, 4, 5, 6, 7, 8, 9};
  const Placement p(spec, 8, 8, 8, "s.json");
  EXPECT_FALSE(p.identity());
  EXPECT_EQ(p.gpu(7), 9);
  EXPECT_EQ(p.cluster_gpus(), 10);
  EXPECT_EQ(p.domains(), 2);
  EXPECT_EQ(p.straddling_blocks(), 1);
}

TEST(Placement, BadListsAndNamesAreErrorsNamingTheField) {
  PlacementSpec spec = policy(PlacementPolicy::kExplicit);
  spec.gpus = {0, 1, 2};
  EXPECT_THROW((void)Placement(spec, 4, 1, 8, "s.json"), InputError);
  spec.gpus = {0, 1, 1, 2};
  try {
    (void)Placement(spec, 4, 1, 8, "s.json");
    FAIL() << "a GPU given twice";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("s.json: /placement/gpus/2"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)read_placement("packed", "s.json"), InputError);
  EXPECT_THROW((void)read_placement(nlohmann::json{{"gpu", {0}}}, "s.json"), InputError);
  EXPECT_THROW((void)read_placement(nlohmann::json{{"gpus", {0, -1}}}, "s.json"), InputError);
  EXPECT_THROW((void)read_placement(3, "s.json"), InputError);
  EXPECT_EQ(read_placement("contiguous", "s.json").policy, PlacementPolicy::kContiguous);
}

// Qwen3-30B-A3B on 8 GPUs of a DGX H100 build, EP 8 = DP 8, two layers, no pipeline; gradients
// reduced after the last backward, so the EP all-to-alls run alone.
Scenario qwen_on(const std::string& gpus, const std::string& network) {
  return load_scenario(std::string(CTWIN_SOURCE_DIR) + "/scenarios/qwen3-30b-a3b-h100-16.json", CTWIN_SOURCE_DIR,
                       {"gpus=8", "model.layers=2", "parallel.pp=1", "parallel.vpp=1", "parallel.schedule=\"1f1b\"",
                        "training.global_batch=32", "overlap.dp_grad_reduce=false", "overlap.dp_param_gather=false",
                        "placement={\"gpus\": " + gpus + "}", "network=\"" + network + "\""});
}

TEST(Placement, StraddlingEpGroupCostsTheSameOnAnalyticalAsOnFlow) {
  const std::string in_node = "[0,1,2,3,4,5,6,7]";
  const std::string even = "[4,5,6,7,8,9,10,11]";   // 4 members in each of two nodes
  const std::string uneven = "[2,3,4,5,6,7,8,9]";   // 6 and 2
  const double alone = simulate_step(qwen_on(in_node, "analytical")).report.step_time_s;
  for (const std::string& gpus : {even, uneven}) {
    const auto analytical = simulate_step(qwen_on(gpus, "analytical"));
    const auto flow = simulate_step(qwen_on(gpus, "flow"));
    ASSERT_TRUE(flow.shared_fabric);
    const double a = analytical.report.step_time_s;
    const double f = flow.report.step_time_s;
    // Not vacuous: crossing the network costs the step well over the tolerance.
    EXPECT_GT(f, alone * 1.05) << gpus;
    EXPECT_NEAR(a / f, 1.0, 0.01) << gpus << ": analytical " << a << " s, flow " << f << " s";
  }
}

}  // namespace
}  // namespace ctwin::replay
