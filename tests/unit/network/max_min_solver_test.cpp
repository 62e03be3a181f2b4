#include "ctwin/network/max_min_solver.hpp"

#include <algorithm>
#include <random>

#include <gtest/gtest.h>

namespace ctwin::network {
namespace {

struct Problem {
  std::vector<double> capacity;
  std::vector<std::uint32_t> offsets{0};
  std::vector<std::uint32_t> links;
  std::vector<double> caps;

  void add_flow(std::vector<std::uint32_t> path, double cap = 1e30) {
    links.insert(links.end(), path.begin(), path.end());
    offsets.push_back(static_cast<std::uint32_t>(links.size()));
    caps.push_back(cap);
  }
  std::vector<double> solve(std::size_t scan_limit = 48) const {
    std::vector<double> rates(caps.size());
    MaxMinSolver solver(scan_limit);
    solver.solve(offsets, links, capacity, caps, rates);
    return rates;
  }
};

// The defining conditions, checked directly: capacities hold, and every flow is either at its
// cap or has a saturated link on which no flow runs faster.
void expect_max_min_fair(const Problem& problem, const std::vector<double>& rates) {
  std::vector<double> load(problem.capacity.size(), 0.0);
  for (std::size_t f = 0; f < rates.size(); ++f) {
    for (auto i = problem.offsets[f]; i < problem.offsets[f + 1]; ++i) load[problem.links[i]] += rates[f];
  }
  for (std::size_t l = 0; l < load.size(); ++l) EXPECT_LE(load[l], problem.capacity[l] * (1 + 1e-9)) << "link " << l;
  for (std::size_t f = 0; f < rates.size(); ++f) {
    if (rates[f] >= problem.caps[f] * (1 - 1e-9)) continue;
    bool has_bottleneck = false;
    for (auto i = problem.offsets[f]; i < problem.offsets[f + 1]; ++i) {
      const auto l = problem.links[i];
      if (load[l] < problem.capacity[l] * (1 - 1e-9)) continue;
      double fastest = 0;
      for (std::size_t g = 0; g < rates.size(); ++g) {
        for (auto j = problem.offsets[g]; j < problem.offsets[g + 1]; ++j) {
          if (problem.links[j] == l) fastest = std::max(fastest, rates[g]);
        }
      }
      if (rates[f] >= fastest * (1 - 1e-9)) has_bottleneck = true;
    }
    EXPECT_TRUE(has_bottleneck) << "flow " << f << " at " << rates[f] << " has no bottleneck";
  }
}

TEST(MaxMinSolver, FlowsThroughOneLinkShareItEqually) {
  for (int n : {1, 2, 3, 7, 64}) {
    Problem problem;
    problem.capacity = {100.0};
    for (int f = 0; f < n; ++f) problem.add_flow({0});
    for (double rate : problem.solve()) EXPECT_DOUBLE_EQ(rate, 100.0 / n);
  }
}

TEST(MaxMinSolver, TextbookTwoLinkExample) {
  // Link 1 (capacity 4) carries flows b, c, d; link 0 (capacity 10) carries a and b.
  // Link 1 saturates first at 4/3 each; a takes what b leaves on link 0: 10 - 4/3.
  Problem problem;
  problem.capacity = {10.0, 4.0};
  problem.add_flow({0});
  problem.add_flow({0, 1});
  problem.add_flow({1});
  problem.add_flow({1});
  const auto rates = problem.solve();
  EXPECT_NEAR(rates[0], 10.0 - 4.0 / 3, 1e-12);
  EXPECT_NEAR(rates[1], 4.0 / 3, 1e-12);
  EXPECT_NEAR(rates[2], 4.0 / 3, 1e-12);
  EXPECT_NEAR(rates[3], 4.0 / 3, 1e-12);
  expect_max_min_fair(problem, rates);
}

TEST(MaxMinSolver, ParkingLotGivesLongFlowTheMinimumShare) {
  // Three links in a row of capacity 1; one flow crosses all, one flow each link alone.
  Problem problem;
  problem.capacity = {1.0, 1.0, 1.0};
  problem.add_flow({0, 1, 2});
  problem.add_flow({0});
  problem.add_flow({1});
  problem.add_flow({2});
  const auto rates = problem.solve();
  for (double rate : rates) EXPECT_NEAR(rate, 0.5, 1e-12);
}

TEST(MaxMinSolver, FlowCapsActAsPrivateLinks) {
  Problem problem;
  problem.capacity = {100.0};
  problem.add_flow({0}, 10.0);
  problem.add_flow({0});
  problem.add_flow({}, 7.0);  // no shared link at all: runs at its cap
  const auto rates = problem.solve();
  EXPECT_DOUBLE_EQ(rates[0], 10.0);
  EXPECT_DOUBLE_EQ(rates[1], 90.0);
  EXPECT_DOUBLE_EQ(rates[2], 7.0);
}

Problem random_problem(std::mt19937& random, int min_flows = 1, int max_flows = 40) {
  Problem problem;
  const int links = 2 + static_cast<int>(random() % 12);
  for (int l = 0; l < links; ++l) problem.capacity.push_back(1.0 + static_cast<double>(random() % 100));
  const int flows = min_flows + static_cast<int>(random() % static_cast<unsigned>(max_flows - min_flows + 1));
  for (int f = 0; f < flows; ++f) {
    std::vector<std::uint32_t> path;
    for (int l = 0; l < links; ++l) {
      if (random() % 3 == 0) path.push_back(static_cast<std::uint32_t>(l));
    }
    if (path.empty()) path.push_back(static_cast<std::uint32_t>(random() % links));
    problem.add_flow(path, random() % 4 == 0 ? 1.0 + static_cast<double>(random() % 50) : 1e30);
  }
  return problem;
}

TEST(MaxMinSolver, RandomProblemsSatisfyTheDefiningConditions) {
  std::mt19937 random(12345);
  for (int trial = 0; trial < 50; ++trial) {
    const Problem problem = random_problem(random);
    expect_max_min_fair(problem, problem.solve());
  }
}

TEST(MaxMinSolver, ScanAndHeapGiveIdenticalRates) {
  std::mt19937 random(777);
  for (int trial = 0; trial < 50; ++trial) {
    const Problem problem = random_problem(random);
    const auto by_heap = problem.solve(0);
    const auto by_scan = problem.solve(1000);
    for (std::size_t f = 0; f < by_heap.size(); ++f) EXPECT_EQ(by_heap[f], by_scan[f]) << "trial " << trial << " flow " << f;
  }
}

// Scans keep up to 64 flows as bits of a word and search paths beyond that: both must match.
TEST(MaxMinSolver, ScanAndHeapGiveIdenticalRatesAroundSixtyFourFlows) {
  std::mt19937 random(4242);
  for (int trial = 0; trial < 40; ++trial) {
    const Problem problem = random_problem(random, 60, 90);
    const auto by_heap = problem.solve(0);
    const auto by_scan = problem.solve(1000);
    for (std::size_t f = 0; f < by_heap.size(); ++f) EXPECT_EQ(by_heap[f], by_scan[f]) << "trial " << trial << " flow " << f;
  }
}

// solve_growing() on problems of many small parts, grown in batches as the flow model grows
// them: links numbered by first use, capacities changed only on links the new flows cross.
// Solving part by part, and only the parts new flows touch, must give a whole solve's rates
// to the bit.
TEST(MaxMinSolver, GrowingSolveByPartsEqualsWholeSolve) {
  std::mt19937 random(4242);
  for (int trial = 0; trial < 40; ++trial) {
    const int fabric_links = 20 + static_cast<int>(random() % 200);
    std::vector<double> capacity(fabric_links);
    for (double& c : capacity) c = 1.0 + static_cast<double>(random() % 100);
    const int flows = 1 + static_cast<int>(random() % 150);
    std::vector<std::vector<std::uint32_t>> paths(flows);
    std::vector<double> caps(flows);
    for (int f = 0; f < flows; ++f) {
      const int hops = 1 + static_cast<int>(random() % 3);
      for (int h = 0; h < hops; ++h) {
        const auto link = static_cast<std::uint32_t>(random() % fabric_links);
        if (std::find(paths[f].begin(), paths[f].end(), link) == paths[f].end()) paths[f].push_back(link);
      }
      if (random() % 7 == 0) paths[f].clear();  // crosses no shared link
      caps[f] = random() % 4 == 0 ? 1.0 + static_cast<double>(random() % 50) : 1e30;
    }
    for (std::size_t split_limit : {0, 16, 64, 100000}) {
      MaxMinSolver growing(48, split_limit);
      Problem problem;
      std::vector<std::int64_t> local(fabric_links, -1);
      std::vector<std::uint32_t> fabric_id;
      std::vector<double> rates;
      for (int first = 0; first < flows;) {
        const int last = std::min(flows, first + 1 + static_cast<int>(random() % 40));
        for (int f = first; f < last; ++f) {
          std::vector<std::uint32_t> path;
          for (std::uint32_t link : paths[f]) {
            if (local[link] < 0) {
              local[link] = static_cast<std::int64_t>(fabric_id.size());
              fabric_id.push_back(link);
              problem.capacity.push_back(capacity[link]);
            }
            // Outside flows leaving the part give capacity back where the newcomers go.
            problem.capacity[local[link]] += static_cast<double>(random() % 3);
            path.push_back(static_cast<std::uint32_t>(local[link]));
          }
          problem.add_flow(path, caps[f]);
        }
        rates.resize(problem.caps.size());
        growing.solve_growing(problem.offsets, problem.links, problem.capacity, problem.caps, rates,
                              static_cast<std::size_t>(first));
        const auto whole = problem.solve();
        for (std::size_t f = 0; f < whole.size(); ++f) {
          ASSERT_EQ(rates[f], whole[f]) << "trial " << trial << " split " << split_limit << " flow " << f;
        }
        // Boundary checks rely on resolved() covering every link a newcomer crosses.
        for (std::size_t l = 0; l < problem.capacity.size(); ++l) {
          bool touched = split_limit == 100000 || first == 0;
          for (int f = first; f < last && !touched; ++f) {
            for (auto i = problem.offsets[f]; i < problem.offsets[f + 1]; ++i) touched |= problem.links[i] == l;
          }
          if (touched) {
            EXPECT_TRUE(growing.resolved(static_cast<std::uint32_t>(l)));
          }
        }
        first = last;
      }
    }
  }
}

}  // namespace
}  // namespace ctwin::network
