// The tree plan is NCCL's double binary tree over nodes (src/graph/trees.cc): two spanning
// trees of at most two children per node, in order (leaves next to their parents in rank
// order, so that most edges stay under one leaf switch), and complementary: a node interior in
// one tree is a leaf in the other, so no NIC carries a parent's load twice.

#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>

#include <gtest/gtest.h>

#include "bundled_fabric.hpp"
#include "ctwin/collectives/plan.hpp"
#include "ctwin/fabric/cluster_spec.hpp"

namespace ctwin::collectives {
namespace {

fabric::Fabric build_nodes(int nodes) {
  const auto path = std::filesystem::path(CTWIN_SOURCE_DIR) / "topologies" / "dgx-h100-superpod.json";
  return fabric::Fabric(ctwin::testing::load_cluster_with_arch(path), 8 * nodes);
}

struct NodeTree {
  std::map<int, std::set<int>> neighbours;
  int edges = 0;
  int neighbour_edges = 0;  // between nodes next to each other in rank order
};

// The node-level edges of channel `channel` (each appears as two transfers, up and down).
NodeTree tree_of(const Plan& plan, const fabric::Fabric& built, std::uint64_t channel) {
  NodeTree tree;
  for (const auto& transfer : plan.phases.at(0).transfers) {
    if (transfer.hop != HopClass::kNet || transfer.route.flow_label != channel) continue;
    const int a = built.node_of(transfer.src);
    const int b = built.node_of(transfer.dst);
    if (!tree.neighbours[a].insert(b).second) continue;
    tree.neighbours[b].insert(a);
    ++tree.edges;
    if (std::abs(a - b) == 1) ++tree.neighbour_edges;
  }
  return tree;
}

// Nodes with children when the tree hangs from `root`; fails unless it spans all nodes.
std::set<int> interior_nodes(const NodeTree& tree, int root, int nodes) {
  std::set<int> seen{root};
  std::set<int> interior;
  std::vector<int> frontier{root};
  while (!frontier.empty()) {
    const int node = frontier.back();
    frontier.pop_back();
    const auto found = tree.neighbours.find(node);
    if (found == tree.neighbours.end()) continue;
    for (int next : found->second) {
      if (!seen.insert(next).second) continue;
      interior.insert(node);
      frontier.push_back(next);
    }
  }
  EXPECT_EQ(static_cast<int>(seen.size()), nodes) << "the tree spans every node";
  EXPECT_EQ(tree.edges, nodes - 1) << "a spanning tree has n - 1 edges";
  for (const auto& [node, next] : tree.neighbours) {
    EXPECT_LE(static_cast<int>(next.size()) - (node == root ? 0 : 1), 2) << "node " << node << " has two children at most";
  }
  return interior;
}

TEST(TreePlan, IsNcclsInOrderComplementaryDoubleBinaryTree) {
  for (int nodes : {2, 3, 4, 5, 6, 7, 8, 13, 14, 31, 64, 257}) {
    const auto built = build_nodes(nodes);
    const Plan plan = make_plan(Op::kAllReduce, Algorithm::kTree, built, 8);
    const NodeTree first = tree_of(plan, built, 0);
    const NodeTree second = tree_of(plan, built, 1);
    // The second tree mirrors the first (even n) or shifts it by one (odd n): its root is
    // where node 0 goes.
    const std::set<int> interior_first = interior_nodes(first, 0, nodes);
    const std::set<int> interior_second = interior_nodes(second, nodes % 2 == 0 ? nodes - 1 : 1, nodes);
    int both = 0;
    for (int node : interior_first) both += interior_second.count(node) ? 1 : 0;
    EXPECT_LE(both, nodes % 2) << nodes << " nodes: interior in both trees";
    // In order: every leaf hangs from a neighbour, so about half the edges join neighbours
    // (one fewer where the shifted tree wraps from the last node to node 0).
    EXPECT_GE(2 * first.neighbour_edges, nodes - 2) << nodes << " nodes";
    EXPECT_GE(2 * second.neighbour_edges, nodes - 3) << nodes << " nodes";
  }
}

}  // namespace
}  // namespace ctwin::collectives
