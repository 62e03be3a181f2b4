#include "ctwin/collectives/plan.hpp"

#include <algorithm>
#include <bit>

#include "ctwin/core/error.hpp"
#include "ctwin/fabric/topologies/multi_site.hpp"

namespace ctwin::collectives {
namespace {

using fabric::Fabric;
using fabric::GpuId;

[[noreturn]] void cannot(Algorithm algorithm, Op op, const std::string& why) {
  throw InputError("--algo", "", std::string(name(algorithm)) + " cannot run " + std::string(name(op)) + ": " + why);
}

HopClass intra_hop(const Fabric& fabric) { return fabric.spec().server.nvlink ? HopClass::kNvlink : HopClass::kPcie; }

HopClass hop_between(const Fabric& fabric, GpuId a, GpuId b) {
  return fabric.node_of(a) != fabric.node_of(b) ? HopClass::kNet : intra_hop(fabric);
}

PlannedTransfer transfer(const Fabric& fabric, GpuId src, GpuId dst, double fraction, int channel) {
  PlannedTransfer planned{src, dst, fraction, {}, hop_between(fabric, src, dst)};
  planned.route.flow_label = static_cast<std::uint64_t>(channel);
  // NCCL >= 2.12 sends cross-rail traffic through the NVLink peer on the right rail (PXN).
  planned.route.pxn = planned.hop == HopClass::kNet && fabric.spec().server.nvlink.has_value();
  return planned;
}

bool nvls_capable(const Fabric& fabric) {
  const auto& nvlink = fabric.spec().server.nvlink;
  return nvlink && nvlink->nvls;
}

int node_count(const Fabric& fabric) { return (fabric.gpus() + fabric.gpus_per_node() - 1) / fabric.gpus_per_node(); }

int gpus_in_node(const Fabric& fabric, int node) {
  return std::min(fabric.gpus_per_node(), fabric.gpus() - node * fabric.gpus_per_node());
}

// NCCL's ring for channel c: inside each node from the GPU on rail r = c mod (GPUs per node)
// through the others, leaving from the last one towards rail r of the next node, so that with
// PXN every inter-node hop stays on one rail and channels spread over all rails.
// The ring over nodes [first_node, end_node) only (one site's), or over every node.
std::vector<GpuId> ring_order(const Fabric& fabric, int channel, int first_node = 0, int end_node = -1) {
  if (end_node < 0) end_node = node_count(fabric);
  std::vector<GpuId> order;
  order.reserve(static_cast<std::size_t>(fabric.gpus()));
  for (int node = first_node; node < end_node; ++node) {
    const int local = gpus_in_node(fabric, node);
    const int first = channel % local;
    for (int i = 0; i < local; ++i) order.push_back(node * fabric.gpus_per_node() + (first + i) % local);
  }
  return order;
}

// One step of every channel's ring over nodes [first_node, end_node), added to `phase`.
void add_ring_step(const Fabric& fabric, int channels, double fraction, bool towards_next, int first_node, int end_node,
                   Phase& phase) {
  for (int c = 0; c < channels; ++c) {
    const auto order = ring_order(fabric, c, first_node, end_node);
    const std::size_t n = order.size();
    if (n < 2) continue;
    for (std::size_t i = 0; i < n; ++i) {
      const GpuId a = order[i];
      const GpuId b = order[(i + 1) % n];
      phase.transfers.push_back(towards_next ? transfer(fabric, a, b, fraction, c) : transfer(fabric, b, a, fraction, c));
    }
  }
}

Phase ring_step(const Fabric& fabric, int channels, double fraction, bool towards_next, int repeat, const char* what) {
  Phase phase{what, {}, repeat, 1};
  add_ring_step(fabric, channels, fraction, towards_next, 0, node_count(fabric), phase);
  return phase;
}

// A pipelined chain from rank 0 along the ring (broadcast) or into it (reduce): every edge but
// the one closing the ring carries the whole buffer, all at once once the pipe is full.
Phase ring_chain(const Fabric& fabric, int channels, bool from_root) {
  Phase phase{from_root ? "pipelined chain from the root" : "pipelined chain into the root", {}, 1,
              fabric.gpus() - 1};
  for (int c = 0; c < channels; ++c) {
    auto order = ring_order(fabric, c);
    std::rotate(order.begin(), std::find(order.begin(), order.end(), 0), order.end());
    for (std::size_t i = 0; i + 1 < order.size(); ++i) {
      phase.transfers.push_back(from_root ? transfer(fabric, order[i], order[i + 1], 1.0 / channels, c)
                                          : transfer(fabric, order[i + 1], order[i], 1.0 / channels, c));
    }
  }
  // The chain crosses every node boundary once and the rest inside nodes.
  const int between = node_count(fabric) - 1;
  phase.pipeline_hops[static_cast<std::size_t>(intra_hop(fabric))] = fabric.gpus() - 1 - between;
  phase.pipeline_hops[static_cast<std::size_t>(HopClass::kNet)] = between;
  return phase;
}

// The parent of `position` in NCCL's binary tree over positions 0..n-1 (ncclGetBtree in
// src/graph/trees.cc, as its comment draws it). The tree is in order: a position's lowest set
// bit is its height, so the odd positions are the leaves, and a parent sits between its
// children, near them in rank order. The parent sets the bit above the lowest one and clears
// that one, or only clears it where the first would leave the range; the root 0 has one child,
// the highest power of two below n.
int btree_parent(int position, int n) {
  const int lowest = position & -position;
  const int up = (position ^ lowest) | (lowest << 1);
  return up < n ? up : position ^ lowest;
}

// NCCL's second tree: the first mirrored when n is even, shifted by one when it is odd, which
// turns the first tree's leaves (odd positions) into interior nodes and back.
int second_tree_node(int position, int n) { return n % 2 == 0 ? n - 1 - position : (position + 1) % n; }

// Links from the deepest position to the root.
int btree_depth(int n) {
  int depth = 0;
  for (int position = 1; position < n; ++position) {
    int hops = 0;
    for (int at = position; at != 0; at = btree_parent(at, n)) ++hops;
    depth = std::max(depth, hops);
  }
  return depth;
}

// Both directions of the edges of NCCL's double binary tree over nodes (two trees, each
// carrying half the data, so that a node interior in one is a leaf in the other) plus the
// chain inside each node. Reduction climbs while broadcast descends: pipelined, all edges
// carry their share at once. Returns the tree depth in hops.
int add_tree_edges(const Fabric& fabric, int channels, Phase& phase, bool with_intra_chain) {
  const int nodes = node_count(fabric);
  const int per_node = fabric.gpus_per_node();
  for (int c = 0; c < channels; ++c) {
    // Channels alternate between the two trees and walk the rails, so every NIC carries tree
    // traffic (NCCL spreads its tree channels over the NICs as it does its rings).
    const int tree = c % 2;
    const int rail = c % per_node;
    const double fraction = 1.0 / channels;
    for (int i = 1; i < nodes; ++i) {
      const int child = tree == 0 ? i : second_tree_node(i, nodes);
      const int parent = tree == 0 ? btree_parent(i, nodes) : second_tree_node(btree_parent(i, nodes), nodes);
      const GpuId up_from = child * per_node + std::min(rail, gpus_in_node(fabric, child) - 1);
      const GpuId up_to = parent * per_node + std::min(rail, gpus_in_node(fabric, parent) - 1);
      phase.transfers.push_back(transfer(fabric, up_from, up_to, fraction, c));
      phase.transfers.push_back(transfer(fabric, up_to, up_from, fraction, c));
    }
    if (!with_intra_chain) continue;
    for (int node = 0; node < nodes; ++node) {
      const int local = gpus_in_node(fabric, node);
      for (int i = 0; i + 1 < local; ++i) {
        const GpuId a = node * per_node + (rail + i) % local;
        const GpuId b = node * per_node + (rail + i + 1) % local;
        phase.transfers.push_back(transfer(fabric, b, a, fraction, c));
        phase.transfers.push_back(transfer(fabric, a, b, fraction, c));
      }
    }
  }
  return btree_depth(nodes);
}

// NVLink SHARP: each GPU pushes its buffer into the switch, which reduces, and the switch
// multicasts each reduced slice back; per GPU about (n+1)/n of the buffer crosses each way.
void add_nvls_legs(const Fabric& fabric, int channels, Phase& phase) {
  const int per_node = fabric.gpus_per_node();
  for (int node = 0; node < node_count(fabric); ++node) {
    const int local = gpus_in_node(fabric, node);
    if (local < 2) continue;
    const double fraction = (local + 1.0) / local / channels;
    for (int c = 0; c < channels; ++c) {
      for (int i = 0; i < local; ++i) {
        const GpuId gpu = node * per_node + i;
        const GpuId peer = node * per_node + (i + 1) % local;
        PlannedTransfer up = transfer(fabric, gpu, peer, fraction, c);
        up.route.leg = fabric::SwitchLeg::kToSwitch;
        PlannedTransfer down = transfer(fabric, peer, gpu, fraction, c);
        down.route.leg = fabric::SwitchLeg::kFromSwitch;
        phase.transfers.push_back(up);
        phase.transfers.push_back(down);
      }
    }
  }
}

Plan ring_plan(Op op, const Fabric& fabric, int channels) {
  const int n = fabric.gpus();
  Plan plan{op, Algorithm::kRing, n, node_count(fabric) > 1, {}};
  const double chunk = 1.0 / (static_cast<double>(n) * channels);
  switch (op) {
    case Op::kAllReduce:
      plan.phases.push_back(ring_step(fabric, channels, chunk, true, 2 * (n - 1), "reduce-scatter then all-gather step"));
      break;
    case Op::kAllGather:
      plan.phases.push_back(ring_step(fabric, channels, chunk, true, n - 1, "all-gather step"));
      break;
    case Op::kReduceScatter:
      plan.phases.push_back(ring_step(fabric, channels, chunk, true, n - 1, "reduce-scatter step"));
      break;
    case Op::kBroadcast:
      plan.phases.push_back(ring_chain(fabric, channels, true));
      break;
    case Op::kReduce:
      plan.phases.push_back(ring_chain(fabric, channels, false));
      break;
    case Op::kAlltoall:
    case Op::kSendRecv:
      cannot(Algorithm::kRing, op, "NCCL runs it as point-to-point sends (use direct)");
  }
  return plan;
}

Plan direct_plan(Op op, const Fabric& fabric, int channels) {
  const int n = fabric.gpus();
  Plan plan{op, Algorithm::kDirect, n, node_count(fabric) > 1, {}};
  if (op == Op::kSendRecv) {
    // nccl-tests sendrecv: every rank sends its buffer to the next and receives from the previous.
    plan.phases.push_back(ring_step(fabric, channels, 1.0 / channels, true, 1, "send to the next rank"));
    return plan;
  }
  if (op != Op::kAlltoall) cannot(Algorithm::kDirect, op, "direct is for alltoall and sendrecv");
  constexpr int kMaxDirectRanks = 2048;  // n² transfers: beyond this the plan alone is gigabytes
  if (n > kMaxDirectRanks) {
    cannot(Algorithm::kDirect, op, "simulating every pair is limited to " + std::to_string(kMaxDirectRanks) + " GPUs");
  }
  Phase phase{"every rank sends a slice to every other", {}, 1, 1};
  for (GpuId src = 0; src < n; ++src) {
    for (int shift = 1; shift < n; ++shift) {
      phase.transfers.push_back(transfer(fabric, src, (src + shift) % n, 1.0 / n, shift));
    }
  }
  plan.phases.push_back(std::move(phase));
  return plan;
}

Plan tree_plan(Op op, const Fabric& fabric, int channels) {
  if (op != Op::kAllReduce) cannot(Algorithm::kTree, op, "NCCL's trees are for all_reduce");
  Plan plan{op, Algorithm::kTree, fabric.gpus(), node_count(fabric) > 1, {}};
  Phase phase{"reduce up and broadcast down the double binary tree, pipelined", {}, 1, 1};
  const int depth = add_tree_edges(fabric, std::max(2, channels), phase, true);
  phase.latency_hops = 2 * (depth + fabric.gpus_per_node() - 1);
  // NCCL's tree latency: 2·((GPUs per node − 1)·intra + log2(nodes)·inter).
  phase.pipeline_hops[static_cast<std::size_t>(intra_hop(fabric))] = 2 * (std::min(fabric.gpus(), fabric.gpus_per_node()) - 1);
  phase.pipeline_hops[static_cast<std::size_t>(HopClass::kNet)] = 2 * depth;
  plan.phases.push_back(std::move(phase));
  return plan;
}

Plan nvls_plan(Op op, Algorithm algorithm, const Fabric& fabric, int channels) {
  if (op != Op::kAllReduce) cannot(algorithm, op, "ctwin models NVLS for all_reduce only");
  if (!nvls_capable(fabric)) cannot(algorithm, op, "the server has no NVLS-capable NVSwitch");
  const bool multi_node = node_count(fabric) > 1;
  if (algorithm == Algorithm::kNvls && multi_node) cannot(algorithm, op, "NVLS alone spans one NVLink domain (use nvlstree)");
  if (algorithm == Algorithm::kNvlsTree && !multi_node) cannot(algorithm, op, "nvlstree needs more than one node");
  Plan plan{op, algorithm, fabric.gpus(), multi_node, {}};
  Phase phase{"reduce in the NVSwitch, multicast back", {}, 1, 2};
  add_nvls_legs(fabric, channels, phase);
  if (multi_node) {
    phase.what += "; node leaders exchange over the double binary tree";
    phase.latency_hops += 2 * add_tree_edges(fabric, std::max(2, channels), phase, false);
  }
  // NCCL: one NVLS latency inside the node (two legs), 2·log2(nodes) network latencies across.
  phase.pipeline_hops[static_cast<std::size_t>(HopClass::kNvlink)] = 2;
  phase.pipeline_hops[static_cast<std::size_t>(HopClass::kNet)] = phase.latency_hops - 2;
  plan.phases.push_back(std::move(phase));
  return plan;
}

Plan halving_doubling_plan(Op op, const Fabric& fabric, int channels) {
  const int n = fabric.gpus();
  if (op != Op::kAllReduce) cannot(Algorithm::kHalvingDoubling, op, "halving-doubling is for all_reduce");
  if (!std::has_single_bit(static_cast<unsigned>(n))) cannot(Algorithm::kHalvingDoubling, op, "needs a power-of-two GPU count");
  Plan plan{op, Algorithm::kHalvingDoubling, n, node_count(fabric) > 1, {}};
  const int rounds = std::countr_zero(static_cast<unsigned>(n));
  // Reduce-scatter by recursive halving (partners 1, 2, 4, ... apart exchange half of what
  // they hold), then all-gather by doubling in reverse (Thakur, Rabenseifner, Gropp 2005).
  for (int pass = 0; pass < 2; ++pass) {
    for (int r = 0; r < rounds; ++r) {
      const int round = pass == 0 ? r : rounds - 1 - r;
      Phase phase{pass == 0 ? "halving exchange" : "doubling exchange", {}, 1, 1};
      const double fraction = 1.0 / static_cast<double>(2 << round) / channels;
      for (GpuId rank = 0; rank < n; ++rank) {
        for (int c = 0; c < channels; ++c) phase.transfers.push_back(transfer(fabric, rank, rank ^ (1 << round), fraction, c));
      }
      plan.phases.push_back(std::move(phase));
    }
  }
  return plan;
}

}  // namespace

int default_channels(const Fabric& fabric) {
  return node_count(fabric) > 1 ? std::max(1, fabric.spec().server.nics.count) : std::max(1, fabric.gpus_per_node());
}

namespace {

// NCCL's PAT (Parallel Aggregated Trees, NCCL 2.23+) for all_gather and reduce_scatter with one
// GPU per node: log2(n) rounds instead of n − 1 ring steps. Modelled Bruck-style: in round r
// each rank exchanges the min(2^r, n − 2^r) slices it has aggregated so far with the rank 2^r
// away (all_gather doubles what it holds; reduce_scatter runs the rounds in reverse).
Plan pat_plan(Op op, const Fabric& fabric, int channels) {
  const int n = fabric.gpus();
  if (op != Op::kAllGather && op != Op::kReduceScatter) cannot(Algorithm::kPat, op, "PAT is for all_gather and reduce_scatter");
  if (fabric.gpus_per_node() != 1) cannot(Algorithm::kPat, op, "NCCL runs PAT with one GPU per node only");
  Plan plan{op, Algorithm::kPat, n, n > 1, {}};
  std::vector<int> distances;
  for (int distance = 1; distance < n; distance *= 2) distances.push_back(distance);
  if (op == Op::kReduceScatter) std::reverse(distances.begin(), distances.end());
  for (int distance : distances) {
    Phase phase{op == Op::kAllGather ? "aggregated exchange, doubling" : "aggregated exchange, halving", {}, 1, 1};
    const double fraction = static_cast<double>(std::min(distance, n - distance)) / n / channels;
    for (GpuId rank = 0; rank < n; ++rank) {
      for (int c = 0; c < channels; ++c) {
        phase.transfers.push_back(transfer(fabric, rank, static_cast<GpuId>((rank + n - distance) % n), fraction, c));
      }
    }
    plan.phases.push_back(std::move(phase));
  }
  return plan;
}

// The sites of a build joined by DCI (fabric.sites): nodes are spread evenly over them, in order.
struct SiteSplit {
  int sites = 1;
  int nodes_per_site = 0;
};

SiteSplit site_split(const Fabric& fabric) {
  const auto* multi = dynamic_cast<const fabric::MultiSite*>(&fabric.topology());
  if (multi == nullptr || multi->sites() < 2) return {1, node_count(fabric)};
  return {multi->sites(), multi->nodes_per_site()};
}

// Whether every site holds the same number of GPUs (the hierarchy pairs GPU j of each site).
bool sites_even(const Fabric& fabric, SiteSplit split) {
  return static_cast<long long>(split.sites) * split.nodes_per_site * fabric.gpus_per_node() == fabric.gpus();
}

// What a DP spanning sites runs (NCCL has no site level; frameworks build it from communicators,
// as torch's and Megatron-LM's hierarchical all_reduce do): a ring reduce-scatter inside each
// site, each GPU's shard all_reduced by a ring over its peers (the GPU at the same place in every
// other site) across the DCI, then a ring all-gather inside each site. The DCI carries 2(k−1)/k
// of the buffer each way and its latency enters 2(k−1) times, against 2(n−1) for one ring over all
// n GPUs. reduce_scatter keeps the first two parts (the DCI part a reduce-scatter of the shard,
// k−1 steps), all_gather the last two (an all-gather of the shard first).
Plan hierarchical_plan(Op op, const Fabric& fabric, int channels) {
  if (op != Op::kAllReduce && op != Op::kReduceScatter && op != Op::kAllGather) {
    cannot(Algorithm::kHierarchical, op, "ctwin builds the site-by-site all_reduce, reduce_scatter and all_gather");
  }
  const SiteSplit split = site_split(fabric);
  if (split.sites < 2) cannot(Algorithm::kHierarchical, op, "the build has one site (fabric.sites); use ring");
  if (!sites_even(fabric, split)) {
    cannot(Algorithm::kHierarchical, op,
           "needs the same GPU count in every site (" + std::to_string(fabric.gpus()) + " GPUs on " +
               std::to_string(split.sites) + " sites of " + std::to_string(split.nodes_per_site) + " nodes)");
  }
  const int k = split.sites;
  const int m = split.nodes_per_site * fabric.gpus_per_node();
  Plan plan{op, Algorithm::kHierarchical, fabric.gpus(), true, {}};
  const auto inside_sites = [&](const char* what) {
    Phase phase{what, {}, m - 1, 1};
    for (int s = 0; s < k; ++s) {
      add_ring_step(fabric, channels, 1.0 / (static_cast<double>(m) * channels), true, s * split.nodes_per_site,
                    (s + 1) * split.nodes_per_site, phase);
    }
    return phase;
  };
  const auto across_sites = [&](const char* what, int steps) {
    Phase phase{what, {}, steps, 1};
    const double shard = 1.0 / (static_cast<double>(m) * k * channels);
    for (int c = 0; c < channels; ++c) {
      for (int s = 0; s < k; ++s) {
        for (int j = 0; j < m; ++j) phase.transfers.push_back(transfer(fabric, s * m + j, ((s + 1) % k) * m + j, shard, c));
      }
    }
    return phase;
  };
  if (op != Op::kAllGather && m > 1) plan.phases.push_back(inside_sites("reduce-scatter step inside each site"));
  if (op == Op::kAllReduce) plan.phases.push_back(across_sites("all_reduce step of each shard over the DCI", 2 * (k - 1)));
  if (op == Op::kReduceScatter) plan.phases.push_back(across_sites("reduce-scatter step of each shard over the DCI", k - 1));
  if (op == Op::kAllGather) plan.phases.push_back(across_sites("all-gather step of each shard over the DCI", k - 1));
  if (op != Op::kReduceScatter && m > 1) plan.phases.push_back(inside_sites("all-gather step inside each site"));
  return plan;
}

// The site-by-site plan where the build spans evenly filled sites.
bool spans_sites(const Fabric& fabric) {
  const SiteSplit split = site_split(fabric);
  return split.sites > 1 && sites_even(fabric, split);
}

Plan plan_by(Op op, Algorithm algorithm, const Fabric& fabric, int channels) {
  switch (algorithm) {
    case Algorithm::kRing:
      return ring_plan(op, fabric, channels);
    case Algorithm::kDirect:
      return direct_plan(op, fabric, channels);
    case Algorithm::kTree:
      return tree_plan(op, fabric, channels);
    case Algorithm::kNvls:
    case Algorithm::kNvlsTree:
      return nvls_plan(op, algorithm, fabric, channels);
    case Algorithm::kHalvingDoubling:
      return halving_doubling_plan(op, fabric, channels);
    case Algorithm::kPat:
      return pat_plan(op, fabric, channels);
    case Algorithm::kHierarchical:
      return hierarchical_plan(op, fabric, channels);
    case Algorithm::kAuto:
      break;
  }
  throw InternalError("auto is resolved before planning");
}

}  // namespace

Plan make_plan(Op op, Algorithm algorithm, const Fabric& fabric, int channels) {
  if (fabric.gpus() < 2) throw InputError("--gpus", "", "a collective needs at least 2 GPUs");
  if (channels < 1) throw InputError("--channels", "", "must be at least 1");
  Plan plan = plan_by(op, algorithm, fabric, channels);
  plan.nodes = node_count(fabric);
  plan.channels = channels;
  const fabric::ServerSpec& server = fabric.spec().server;
  plan.arch = nccl_arch_of(server.gpu_arch, server.gpu, fabric.spec().file);
  return plan;
}

std::vector<Algorithm> candidate_algorithms(Op op, const Fabric& fabric) {
  switch (op) {
    case Op::kAllReduce: {
      std::vector<Algorithm> list{Algorithm::kRing, Algorithm::kTree};
      if (nvls_capable(fabric)) list.push_back(node_count(fabric) > 1 ? Algorithm::kNvlsTree : Algorithm::kNvls);
      if (spans_sites(fabric)) list.push_back(Algorithm::kHierarchical);
      return list;
    }
    case Op::kAlltoall:
    case Op::kSendRecv:
      return {Algorithm::kDirect};
    case Op::kAllGather:
    case Op::kReduceScatter: {
      std::vector<Algorithm> list{Algorithm::kRing};
      if (fabric.gpus_per_node() == 1 && fabric.gpus() > 1) list.push_back(Algorithm::kPat);
      if (spans_sites(fabric)) list.push_back(Algorithm::kHierarchical);
      return list;
    }
    default:
      return {Algorithm::kRing};
  }
}

}  // namespace ctwin::collectives
