#include "ctwin/network/traffic_pattern.hpp"

#include <algorithm>

#include "ctwin/core/error.hpp"
#include "ctwin/core/limits.hpp"

namespace ctwin::network {
namespace {

constexpr std::uint32_t kNoTransfer = ~std::uint32_t{0};

// A pattern is held in memory transfer by transfer; past this it is a mistake (an alltoall
// on a million GPUs), not a study.
constexpr std::size_t kMaxTransfers = std::size_t{1} << 26;

// One transfer of `options.size` bytes, split into flows_per_pair flows as NCCL splits a
// transfer over its channels: the flows carry size / K bytes each, the first size % K flows
// one byte more, so the pair moves exactly `size` bytes whatever K is.
void add_pair(TrafficPattern& pattern, GpuId src, GpuId dst, const PatternOptions& options, std::int64_t after = -1) {
  if (pattern.transfers.size() + static_cast<std::size_t>(options.flows_per_pair) > kMaxTransfers) {
    throw InputError("--pattern", "", "'" + pattern.name + "' on this build needs more than 2^26 transfers (" +
                                          "flows per pair included): use fewer GPUs, steps or flows");
  }
  const std::int64_t flows = options.flows_per_pair;
  for (int flow = 0; flow < options.flows_per_pair; ++flow) {
    const Bytes share(options.size.count() / flows + (flow < options.size.count() % flows ? 1 : 0));
    PlannedTransfer transfer;
    transfer.request = {src, dst, share, {static_cast<std::uint64_t>(flow), options.pxn}};
    transfer.after = after;
    pattern.transfers.push_back(transfer);
  }
}

[[noreturn]] void too_small(const std::string& name, const std::string& why) {
  throw InputError("--pattern", "", "'" + name + "' " + why);
}

}  // namespace

std::vector<std::pair<std::string, std::string>> pattern_catalog() {
  return {
      {"alltoall", "every GPU sends to every GPU of the other nodes, all at once"},
      {"incast", "every other GPU sends to GPU 0 at once"},
      {"cross_rail", "GPU g of node n sends to GPU g+1 (next rail) of node n+1"},
      {"rail_ring", "GPU g of node n sends to GPU g of node n+1 (same rail), all at once"},
      {"permutation", "GPU i sends to GPU i + half the GPUs, all at once"},
      {"alltoall_chain", "every GPU sends to `steps` GPUs of other nodes, one after the other"},
  };
}

TrafficPattern make_pattern(const std::string& name, const fabric::Fabric& fabric, const PatternOptions& options) {
  if (options.size < Bytes(0)) throw InputError("--size", "", "must not be negative");
  if (const auto problem = limits::message_problem(options.size)) throw InputError("--size", "", *problem);
  if (options.flows_per_pair < 1 || options.flows_per_pair > limits::kMaxChannels) {
    throw InputError("--flows-per-pair", "", "must be between 1 and 64 (NCCL's most channels), got " +
                                                 std::to_string(options.flows_per_pair));
  }
  if (options.steps < 1 || options.steps > 1'000'000) {
    throw InputError("--steps", "", "must be between 1 and 1000000, got " + std::to_string(options.steps));
  }
  TrafficPattern pattern{name, {}};
  const GpuId gpus = fabric.gpus();
  const int per_node = fabric.gpus_per_node();
  const int nodes = (gpus + per_node - 1) / per_node;
  if (name == "alltoall") {
    if (nodes < 2) too_small(name, "needs at least two nodes");
    for (GpuId src = 0; src < gpus; ++src) {
      for (GpuId dst = 0; dst < gpus; ++dst) {
        if (fabric.node_of(src) != fabric.node_of(dst)) add_pair(pattern, src, dst, options);
      }
    }
  } else if (name == "incast") {
    if (gpus < 2) too_small(name, "needs at least two GPUs");
    for (GpuId src = 1; src < gpus; ++src) add_pair(pattern, src, 0, options);
  } else if (name == "cross_rail" || name == "rail_ring") {
    if (nodes < 2 || gpus % per_node != 0) too_small(name, "needs at least two whole nodes");
    const int shift = name == "cross_rail" ? 1 : 0;
    for (GpuId src = 0; src < gpus; ++src) {
      const int next_node = (fabric.node_of(src) + 1) % nodes;
      add_pair(pattern, src, next_node * per_node + (fabric.local_index(src) + shift) % per_node, options);
    }
  } else if (name == "permutation") {
    if (gpus < 2) too_small(name, "needs at least two GPUs");
    for (GpuId src = 0; src < gpus; ++src) add_pair(pattern, src, (src + gpus / 2) % gpus, options);
  } else if (name == "alltoall_chain") {
    if (nodes < 2) too_small(name, "needs at least two nodes");
    if (options.steps < 1) throw InputError("--steps", "", "must be at least 1");
    // Step k targets the node k hops away (wrapping past the source's own node), and walks the
    // local index, so successive steps cross rails, SUs and pods.
    for (GpuId src = 0; src < gpus; ++src) {
      std::int64_t previous = -1;
      for (int step = 1; step <= options.steps; ++step) {
        const int node_hop = 1 + (step - 1) % (nodes - 1);
        const int dst_node = (fabric.node_of(src) + node_hop) % nodes;
        const GpuId dst = std::min<GpuId>(dst_node * per_node + (fabric.local_index(src) + step) % per_node, gpus - 1);
        const auto first = static_cast<std::int64_t>(pattern.transfers.size());
        add_pair(pattern, src, dst, options, previous);
        previous = first;
      }
    }
  } else {
    std::string list;
    for (const auto& [known, what] : pattern_catalog()) list += (list.empty() ? "" : ", ") + known;
    throw InputError("--pattern", "", "unknown pattern '" + name + "' (expected " + list + ")");
  }
  return pattern;
}

TrafficResult run_pattern(NetworkModel& model, const TrafficPattern& pattern) {
  TrafficResult result;
  const std::size_t count = pattern.transfers.size();
  CTWIN_ASSERT(count < kNoTransfer, "transfer indices fit 32 bits");
  // Per transfer, its dependents as a list (its first dependent, then each dependent's next
  // sibling, in index order) and its completion time, in one entry: a completion writes its
  // own time and reads its first dependent's entry, which for a chain is the next one, on the
  // same cache line or the one after. A transfer's first dependent is read when it starts and
  // travels in its completion, so a completion knows what to start without first chasing an
  // index through a large pattern's arrays, cold by then.
  struct Progress {
    std::uint32_t first = kNoTransfer;
    std::uint32_t next_sibling = kNoTransfer;
    SimTime completed_at;
  };
  std::vector<Progress> progress(count);
  for (std::size_t i = count; i-- > 0;) {
    const auto after = pattern.transfers[i].after;
    if (after < 0) continue;
    progress[i].next_sibling = progress[static_cast<std::size_t>(after)].first;
    progress[static_cast<std::size_t>(after)].first = static_cast<std::uint32_t>(i);
  }
  engine::Simulator& simulator = model.simulator();
  const std::uint64_t events_before = simulator.events_processed();
  // Completions capture one pointer and two indices, small enough for std::function to hold
  // without allocating: a large pattern completes millions of them.
  struct Replay {
    NetworkModel& model;
    const TrafficPattern& pattern;
    std::vector<Progress>& progress;

    void start(std::uint32_t i, std::uint32_t first) {
      model.start_transfer(pattern.transfers[i].request, [this, i, first] { complete(i, first); });
    }
    void complete(std::uint32_t i, std::uint32_t first) {
      // The first dependent's request is read as it starts, after the entries below: load it
      // now, so the two misses overlap.
      if (first != kNoTransfer) __builtin_prefetch(&pattern.transfers[first]);
      progress[i].completed_at = model.simulator().now();
      for (std::uint32_t d = first; d != kNoTransfer;) {
        const Progress next = progress[d];
        start(d, next.first);
        d = next.next_sibling;
      }
    }
  };
  Replay replay{model, pattern, progress};
  simulator.schedule_in(SimTime(), [&] {
    for (std::size_t i = 0; i < count; ++i) {
      if (pattern.transfers[i].after < 0) replay.start(static_cast<std::uint32_t>(i), progress[i].first);
    }
  });
  model.run();
  result.completed_at.resize(count);
  for (std::size_t i = 0; i < count; ++i) result.completed_at[i] = progress[i].completed_at;
  result.makespan = count == 0 ? SimTime() : *std::max_element(result.completed_at.begin(), result.completed_at.end());
  result.stats = model.stats();
  result.events = simulator.events_processed() - events_before;
  for (const SimTime at : result.completed_at) CTWIN_ASSERT(at >= SimTime(), "transfers complete at non-negative times");
  return result;
}

}  // namespace ctwin::network
