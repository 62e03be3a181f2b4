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
  EXPECT_THROW((void)read_placement("scattered", "s.json"), InputError);
  EXPECT_THROW((void)read_placement(nlohmann::json{{"gpu", {0}}}, "s.json"), InputError);
  EXPECT_THROW((void)read_placement(nlohmann::json{{"gpus", {0, -1}}}, "s.json"), InputError);
  EXPECT_THROW((void)read_placement(3, "s.json"), InputError);
  EXPECT_EQ(read_placement("contiguous", "s.json").policy, PlacementPolicy::kContiguous);
}

// Qwen3-30B-A3B on 16 ranks of a DGX H100 build (8-GPU NVLink domains), two EP 8 groups, two
// layers, no pipeline; gradients reduced after the last backward, so the EP all-to-alls run
// alone. The first group sits in node 0; `second` places the other.
Scenario qwen_on(const std::string& second, const std::string& network) {
  return load_scenario(std::string(CTWIN_SOURCE_DIR) + "/scenarios/qwen3-30b-a3b-h100-16.json", CTWIN_SOURCE_DIR,
                       {"gpus=16", "model.layers=2", "parallel.pp=1", "parallel.vpp=1", "parallel.schedule=\"1f1b\"",
                        "training.global_batch=64", "overlap.dp_grad_reduce=false", "overlap.dp_param_gather=false",
                        "placement={\"gpus\": [0,1,2,3,4,5,6,7," + second + "]}", "network=\"" + network + "\""});
}

TEST(Placement, StraddlingEpGroupCostsTheSameOnAnalyticalAsOnFlow) {
  const auto alone = simulate_step(qwen_on("8,9,10,11,12,13,14,15", "analytical")).report;
  // The second group across nodes 1 and 2: 4 + 4 (a slice of 4 GPUs per node), then 6 + 2 (its
  // plan mapped onto the build's GPUs).
  for (const std::string second : {"12,13,14,15,16,17,18,19", "10,11,12,13,14,15,16,17"}) {
    const auto analytical = simulate_step(qwen_on(second, "analytical")).report;
    const auto flow_step = simulate_step(qwen_on(second, "flow"));
    ASSERT_TRUE(flow_step.shared_fabric);
    const auto& flow = flow_step.report;
    // Not vacuous: crossing the network costs the EP all-to-alls, and the step, well over the tolerance.
    EXPECT_GT(flow.breakdown.exposed_comm_s.ep, alone.breakdown.exposed_comm_s.ep * 1.5) << second;
    EXPECT_GT(flow.step_time_s, alone.step_time_s * 1.05) << second;
    EXPECT_NEAR(analytical.step_time_s / flow.step_time_s, 1.0, 0.01) << second;
    EXPECT_NEAR(analytical.breakdown.exposed_comm_s.ep / flow.breakdown.exposed_comm_s.ep, 1.0, 0.01) << second;
  }
}

}  // namespace
}  // namespace ctwin::replay
