#include "ctwin/network/link_flows.hpp"

#include <vector>

#include <gtest/gtest.h>

namespace ctwin::network {
namespace {

std::vector<std::uint32_t> flows_of(const LinkFlows& list) {
  std::vector<std::uint32_t> out;
  for (const FlowOnLink& entry : list) out.push_back(entry.flow);
  return out;
}

TEST(LinkFlows, KeepsEntriesAcrossSpillingAndComingBack) {
  LinkFlows list;
  EXPECT_TRUE(list.empty());
  std::vector<std::uint32_t> expected;
  for (std::uint32_t f = 0; f < 17; ++f) {  // four inline, then spilled at 8 and grown to 16 and 32
    list.push_back({f, f % 3});
    expected.push_back(f);
    EXPECT_EQ(flows_of(list), expected);
  }
  list[0] = list.back();  // the flow model's swap-remove
  list.pop_back();
  expected[0] = expected.back();
  expected.pop_back();
  EXPECT_EQ(flows_of(list), expected);
  while (list.size() > 1) {  // back inline at four
    list.pop_back();
    expected.pop_back();
    EXPECT_EQ(flows_of(list), expected);
    EXPECT_EQ(list.back().flow, expected.back());
  }
  list.pop_back();
  EXPECT_TRUE(list.empty());
}

TEST(LinkFlows, AnEntryHoldsTheLargestFlowIdAndHop) {
  LinkFlows list;
  const std::uint32_t last_flow = FlowOnLink::kFlowLimit - 1;
  const std::uint32_t last_hop = FlowOnLink::kHopLimit - 1;
  list.push_back({last_flow, last_hop});
  list.push_back({0, 0});
  EXPECT_EQ(list.begin()[0].flow, last_flow);
  EXPECT_EQ(list.begin()[0].hop, last_hop);
  EXPECT_EQ(list.back().flow, 0U);
  EXPECT_EQ(list.back().hop, 0U);
}

}  // namespace
}  // namespace ctwin::network
