#include "ctwin/studies/size_parts.hpp"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>

namespace ctwin::api {
namespace {

fabric::BillOfMaterials bill_of(const std::vector<std::pair<std::string, long long>>& counts) {
  fabric::BillOfMaterials bill;
  for (const auto& [part, count] : counts) {
    fabric::BomLine line;
    line.part = part;
    line.count = count;
    bill.lines.push_back(line);
  }
  return bill;
}

double capex_at(const fabric::BillOfMaterials& bill, const std::map<std::string, double>& prices) {
  double sum = 0;
  for (const auto& line : bill.lines) sum += static_cast<double>(line.count) * prices.at(line.part);
  return sum;
}

// The claim `size` prints: a bill that needs no more of any part costs no more at any prices.
// Checked over random price lists, including lists where one part costs almost everything.
TEST(SizeParts, NoMoreOfAnyPartCostsNoMoreAtAnyPrices) {
  // Two lines of one part (leaf and spine switches) count together.
  const auto tree = bill_of({{"switch", 32}, {"switch", 16}, {"fiber", 1024}, {"optic", 2048}, {"dac", 1024}});
  const auto dragonfly = bill_of({{"switch", 64}, {"fiber", 1504}, {"optic", 3008}, {"dac", 1024}});
  const auto planned = bill_of({{"switch", 64}, {"fiber", 1008}, {"optic", 2016}, {"dac", 1024}});
  EXPECT_TRUE(needs_no_more_parts(tree, dragonfly));
  EXPECT_FALSE(needs_no_more_parts(dragonfly, tree));
  // 16 switches fewer but 16 fibers and 32 optics more: the prices decide, so neither is marked.
  EXPECT_FALSE(needs_no_more_parts(tree, planned));
  EXPECT_FALSE(needs_no_more_parts(planned, tree));
  std::mt19937_64 draw(7);
  std::uniform_real_distribution<double> price(0, 1);
  for (int trial = 0; trial < 200; ++trial) {
    std::map<std::string, double> prices;
    for (const char* part : {"switch", "fiber", "optic", "dac"}) prices[part] = trial % 4 == 0 ? 1e-9 : price(draw);
    prices["switch"] = trial % 4 == 0 ? 1 : prices["switch"];
    EXPECT_LE(capex_at(tree, prices), capex_at(dragonfly, prices));
  }
  // The undecided pair goes either way: the tree is dearer when switches are almost free.
  const std::map<std::string, double> cheap_switches{{"switch", 0.001}, {"fiber", 1}, {"optic", 1}, {"dac", 1}};
  const std::map<std::string, double> dear_switches{{"switch", 100}, {"fiber", 1}, {"optic", 1}, {"dac", 1}};
  EXPECT_GT(capex_at(tree, cheap_switches), capex_at(planned, cheap_switches));
  EXPECT_LT(capex_at(tree, dear_switches), capex_at(planned, dear_switches));
}

TEST(SizeParts, APartTheOtherLacksCountsAsNone) {
  const auto with_acc = bill_of({{"switch", 10}, {"acc", 1}});
  const auto without = bill_of({{"switch", 20}});
  EXPECT_FALSE(needs_no_more_parts(with_acc, without));
  EXPECT_TRUE(needs_no_more_parts(without, bill_of({{"switch", 20}, {"acc", 5}})));
  EXPECT_TRUE(needs_no_more_parts(bill_of({}), without));
}

TEST(SizeParts, EqualBillsNameEachOtherAndSkippedOptionsNeither) {
  const auto a = bill_of({{"switch", 4}, {"fiber", 8}});
  const auto b = bill_of({{"fiber", 8}, {"switch", 4}});
  const auto c = bill_of({{"switch", 5}, {"fiber", 8}});
  const auto marks = no_more_parts_than({&a, &b, &c, nullptr});
  EXPECT_EQ(marks[0], (std::vector<std::size_t>{1, 2}));
  EXPECT_EQ(marks[1], (std::vector<std::size_t>{0, 2}));
  EXPECT_TRUE(marks[2].empty());
  EXPECT_TRUE(marks[3].empty());  // not built
}

}  // namespace
}  // namespace ctwin::api
