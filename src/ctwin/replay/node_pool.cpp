#include "ctwin/replay/node_pool.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>

#include "ctwin/core/error.hpp"
#include "ctwin/core/json_reader.hpp"
#include "ctwin/replay/proportional_shares.hpp"
#include "ctwin/workload/memory_model.hpp"

namespace ctwin::replay {
namespace {

std::string gib_text(Bytes bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f GiB", static_cast<double>(bytes.count()) / double(1LL << 30));
  return text;
}

/// The group among `groups` whose GPUs run `stage` slowest (compute stream, every chunk pass).
std::size_t slowest_group(const std::vector<std::size_t>& groups, const std::map<std::size_t, StepWork>& built,
                          std::size_t stage) {
  std::size_t slowest = groups.front();
  SimTime longest{};
  for (const std::size_t g : groups) {
    SimTime total{};
    for (const ChunkWork& chunk : built.at(g).stages[stage].chunks) {
      total += compute_time_of(chunk.forward, false, false) + compute_time_of(chunk.backward, false, false);
    }
    if (total > longest) {
      longest = total;
      slowest = g;
    }
  }
  return slowest;
}

/// Whether the groups of one stage have different servers (a group's own counts as its own).
bool spans_servers(const NodePool& pool, const std::vector<std::size_t>& groups) {
  return groups.size() > 1 && std::any_of(groups.begin(), groups.end(),
                                          [&](std::size_t g) { return pool.groups[g].server.has_value(); });
}

/// Every collective of a stage spanning groups of different servers waits for its slowest member:
/// each communication op of `chosen` takes the longest of its times on the groups' servers.
void take_slowest_collectives(StageWork& chosen, const Scenario& s, const std::vector<std::size_t>& groups,
                              const std::map<std::size_t, StepWork>& built, std::size_t stage) {
  auto widen = [&](std::vector<OpNode>& ops, auto list_of) {
    for (const std::size_t g : groups) {
      const std::vector<OpNode>& other = list_of(built.at(g).stages[stage]);
      if (other.size() != ops.size()) {
        throw InputError(s.source, "/cluster/node_groups",
                         "pipeline stage " + std::to_string(stage) + " spans groups whose GPUs run different "
                         "operations and whose servers differ; give its groups one server");
      }
      for (std::size_t i = 0; i < ops.size(); ++i) {
        if (ops[i].comm) ops[i].duration = std::max(ops[i].duration, other[i].duration);
      }
    }
  };
  for (std::size_t c = 0; c < chosen.chunks.size(); ++c) {
    widen(chosen.chunks[c].forward, [c](const StageWork& w) -> const std::vector<OpNode>& { return w.chunks[c].forward; });
    widen(chosen.chunks[c].backward, [c](const StageWork& w) -> const std::vector<OpNode>& { return w.chunks[c].backward; });
  }
  widen(chosen.after_backward, [](const StageWork& w) -> const std::vector<OpNode>& { return w.after_backward; });
}

std::int64_t pool_nodes(const NodePool& pool) {
  std::int64_t nodes = 0;
  for (const PoolGroup& g : pool.groups) nodes += g.nodes;
  return nodes;
}

}  // namespace

NodePool read_node_pool(const fabric::ClusterSpec& cluster, const nlohmann::json* pool, const std::string& source,
                        const GpuResolver& resolve_gpu) {
  NodePool result;
  if (cluster.node_groups.empty()) {
    if (pool != nullptr) throw InputError(source, "/pool", "the cluster has no node_groups to pool");
    return result;
  }
  std::vector<std::size_t> order(cluster.node_groups.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  if (pool != nullptr) {
    if (!pool->is_object()) throw InputError(source, "/pool", "expected an object {\"balance\", \"order\"}");
    JsonObjectReader reader(*pool, source, "/pool");
    result.balance = reader.choice_or("balance", {"even", "speed"}, "even") == "speed" ? PoolBalance::kSpeed
                                                                                      : PoolBalance::kEven;
    if (reader.has("order")) {
      const std::vector<std::string> names = reader.string_list("order");
      order.clear();
      for (std::size_t i = 0; i < names.size(); ++i) {
        const std::string pointer = "/pool/order/" + std::to_string(i);
        const auto it = std::find_if(cluster.node_groups.begin(), cluster.node_groups.end(),
                                     [&](const fabric::NodeGroupSpec& g) { return g.name == names[i]; });
        if (it == cluster.node_groups.end()) {
          std::string known;
          for (const auto& g : cluster.node_groups) known += (known.empty() ? "" : ", ") + g.name;
          throw InputError(source, pointer, "no node group '" + names[i] + "' in the cluster (groups: " + known + ")");
        }
        const auto index = static_cast<std::size_t>(it - cluster.node_groups.begin());
        if (std::find(order.begin(), order.end(), index) != order.end()) {
          throw InputError(source, pointer, "group '" + names[i] + "' is named twice");
        }
        order.push_back(index);
      }
    }
    reader.finish();
  }
  for (const std::size_t i : order) {
    const fabric::NodeGroupSpec& spec = cluster.node_groups[i];
    result.groups.push_back({spec.name, spec.nodes,
                             resolve_gpu(spec.gpu, "/cluster/node_groups/" + std::to_string(i) + "/gpu"), spec.server});
  }
  return result;
}

std::vector<std::size_t> groups_of_ranks(const Scenario& s, std::int64_t first_rank, std::int64_t end_rank) {
  const std::int64_t node = s.cluster.server.gpus;
  // Nodes [first, last] hold the ranks; group g holds nodes [start, start + nodes).
  const std::int64_t first = first_rank / node;
  const std::int64_t last = (end_rank - 1) / node;
  std::vector<std::size_t> result;
  std::int64_t start = 0;
  for (std::size_t g = 0; g < s.pool.groups.size(); ++g) {
    const std::int64_t end = start + s.pool.groups[g].nodes;
    if (start <= last && first < end) result.push_back(g);
    start = end;
  }
  return result;
}

std::vector<std::vector<std::size_t>> stage_groups(const Scenario& s) {
  if (!s.pool.replica_groups.empty()) return s.pool.replica_groups;
  const std::int64_t stage_gpus = s.gpus / s.split.pp;
  std::vector<std::vector<std::size_t>> result(static_cast<std::size_t>(s.split.pp));
  for (std::int64_t stage = 0; stage < s.split.pp; ++stage) {
    result[static_cast<std::size_t>(stage)] = groups_of_ranks(s, stage * stage_gpus, (stage + 1) * stage_gpus);
  }
  return result;
}

void check_pool(const Scenario& s) {
  if (s.pool.groups.empty()) return;
  const std::int64_t node = s.cluster.server.gpus;
  const std::int64_t needed = (s.gpus + node - 1) / node;
  if (pool_nodes(s.pool) < needed) {
    throw InputError(s.source, "/cluster/node_groups",
                     "the groups hold " + std::to_string(pool_nodes(s.pool)) + " nodes; the job's " +
                         std::to_string(s.gpus) + " GPUs need " + std::to_string(needed));
  }
  if (!place_ranks(s).identity()) {
    throw InputError(s.source, "/placement", "a pool fills its groups' nodes in order; drop the explicit placement");
  }
}

void check_pool_memory(const Scenario& s) {
  if (s.pool.groups.empty()) return;
  workload::MemoryOptions options;
  options.flash_attention = s.split.flash_attention;
  options.fp32_gradients = s.split.grad_reduce_in_fp32;
  const auto memory = workload::memory_per_stage(s.model, s.split, s.gpus, options);
  const auto groups = stage_groups(s);
  for (std::size_t stage = 0; stage < memory.size(); ++stage) {
    for (const std::size_t g : groups[stage]) {
      if (workload::fits_memory(memory[stage], s.pool.groups[g].gpu)) continue;
      throw InputError(s.source, "/cluster/node_groups",
                       "pipeline stage " + std::to_string(stage) + " needs " + gib_text(memory[stage].total()) +
                           " per GPU; group '" + s.pool.groups[g].name + "' (" + s.pool.groups[g].gpu.name +
                           ") holds " + gib_text(s.pool.groups[g].gpu.hbm_capacity));
    }
  }
}

std::vector<double> group_layer_seconds(const Scenario& s) {
  // One middle layer (dense or MoE as most layers are) per group, communication free: kernel time only.
  CollectiveTimes free_comm(s.cluster, s.network, true, nullptr, s.tuning);
  const std::int64_t layer = s.model.layers / 2;
  std::vector<double> layer_s(s.pool.groups.size());
  for (std::size_t g = 0; g < s.pool.groups.size(); ++g) {
    Scenario on = s;
    on.gpu = s.pool.groups[g].gpu;
    const ChunkWork work = build_layer_work(on, free_comm, layer);
    layer_s[g] = (compute_time_of(work.forward, false, false) + compute_time_of(work.backward, false, false)).seconds();
  }
  return layer_s;
}

std::vector<std::int64_t> speed_layout(const Scenario& s) { return speed_layout(s, group_layer_seconds(s)); }

std::vector<std::int64_t> speed_layout(const Scenario& s, const std::vector<double>& layer_s) {
  const auto groups = stage_groups(s);
  const auto pp = static_cast<std::size_t>(s.split.pp);
  const auto virtual_stages = pp * static_cast<std::size_t>(s.split.vpp);
  std::vector<double> weight(virtual_stages);
  for (std::size_t v = 0; v < virtual_stages; ++v) {
    double slowest = 0;
    for (const std::size_t g : groups[v % pp]) slowest = std::max(slowest, layer_s[g]);
    weight[v] = 1 / slowest;
  }
  std::vector<std::int64_t> layout = proportional_shares(weight, s.model.layers);
  if (layout.empty()) {
    throw InputError(s.source, "/pool/balance", "the model's " + std::to_string(s.model.layers) +
                                                    " layers cannot give each of " + std::to_string(virtual_stages) +
                                                    " virtual stages one");
  }
  return layout;
}

void apply_pool(StepWork& work, const Scenario& s, CollectiveTimes& comm, PoolComm* kept) {
  if (s.pool.groups.empty()) return;
  const auto groups = stage_groups(s);
  std::map<std::size_t, StepWork> built;
  // Each distinct server's pricing once, so that groups on one server follow one set of plans
  // (and a group naming the file's own server is priced, planned and paced as the build).
  std::vector<std::pair<fabric::ServerSpec, std::unique_ptr<CollectiveTimes>>> own_pricing;
  std::map<std::size_t, CollectiveTimes*> pricing_of;
  for (const auto& stage : groups) {
    for (const std::size_t g : stage) {
      if (built.contains(g)) continue;
      Scenario on = s;
      on.gpu = s.pool.groups[g].gpu;
      if (const auto& server = s.pool.groups[g].server) {
        // The group's collectives and sends priced as on a build of its own servers.
        on.cluster.server = *server;
        on.cluster.server.gpu_arch = s.cluster.server.gpu_arch;
        CollectiveTimes* own = &comm;
        if (on.cluster.server != s.cluster.server) {
          auto same = std::find_if(own_pricing.begin(), own_pricing.end(),
                                   [&](const auto& p) { return p.first == on.cluster.server; });
          if (same == own_pricing.end()) {
            own_pricing.emplace_back(on.cluster.server, std::make_unique<CollectiveTimes>(comm.on_server(*server)));
            same = own_pricing.end() - 1;
          }
          own = same->second.get();
          pricing_of[g] = own;
        }
        built.emplace(g, build_step_work(on, *own));
      } else {
        built.emplace(g, build_step_work(on, comm));
      }
    }
  }
  const bool servers = has_group_servers(s.pool);
  if (servers) work.p2p_on_stage.assign(groups.size(), work.p2p);
  std::vector<CollectiveTimes*> stage_plans(servers ? groups.size() : 0, nullptr);
  for (std::size_t stage = 0; stage < groups.size(); ++stage) {
    work.stages[stage] = built.at(slowest_group(groups[stage], built, stage)).stages[stage];
    if (spans_servers(s.pool, groups[stage])) take_slowest_collectives(work.stages[stage], s, groups[stage], built, stage);
    if (!servers) continue;
    // A send waits for the slower end: each stage's is priced on its slowest groups' server.
    for (const std::size_t g : groups[stage]) {
      work.p2p_on_stage[stage] = std::max(work.p2p_on_stage[stage], built.at(g).p2p);
    }
    // Its ops follow the plans of the server they were priced on (a stage spanning servers: the
    // first group's own, whose times take part in each op's longest).
    const auto own = std::find_if(groups[stage].begin(), groups[stage].end(), [&](std::size_t g) { return pricing_of.contains(g); });
    if (own != groups[stage].end()) stage_plans[stage] = pricing_of.at(*own);
  }
  if (servers && std::all_of(groups.begin(), groups.end(), [&](const auto& stage) {
        return std::none_of(stage.begin(), stage.end(), [&](std::size_t g) { return built.at(g).p2p != work.p2p; });
      })) {
    work.p2p_on_stage.clear();  // every stage's send as the build's: the work as without servers
  }
  if (kept == nullptr) return;
  if (std::any_of(stage_plans.begin(), stage_plans.end(), [](const CollectiveTimes* p) { return p != nullptr; })) {
    kept->stage_plans = std::move(stage_plans);
  }
  for (auto& [server, pricing] : own_pricing) kept->servers.push_back(std::move(pricing));
}

bool has_group_servers(const NodePool& pool) {
  return std::any_of(pool.groups.begin(), pool.groups.end(), [](const PoolGroup& g) { return g.server.has_value(); });
}

void check_group_servers_priced(const Scenario& s, bool shared, bool repriced) {
  if (!has_group_servers(s.pool)) return;
  if (shared && s.cluster.fabric.sites) {
    throw InputError(s.source, "/cluster/node_groups",
                     "a node group's own server on a multi-site build is priced on the analytical network only: set "
                     "network analytical");
  }
  if (repriced) {
    throw InputError(s.source, "/cluster/node_groups",
                     "a node group's own server needs stages of whole nodes (or within one) on one site");
  }
}

fabric::ClusterSpec pool_build(const Scenario& s) {
  if (!has_group_servers(s.pool)) return s.cluster;
  fabric::ClusterSpec cluster = s.cluster;
  cluster.build_group_servers = true;
  cluster.node_groups.clear();
  for (const PoolGroup& g : s.pool.groups) {
    const auto it = std::find_if(s.cluster.node_groups.begin(), s.cluster.node_groups.end(),
                                 [&](const fabric::NodeGroupSpec& spec) { return spec.name == g.name; });
    CTWIN_ASSERT(it != s.cluster.node_groups.end(), "a pool's groups are the cluster's");
    cluster.node_groups.push_back(*it);
  }
  return cluster;
}

std::string pool_build_key(const Scenario& s) {
  if (!has_group_servers(s.pool)) return "";
  std::string key = "|groups";
  for (const PoolGroup& g : s.pool.groups) key += ":" + g.name;
  return key;
}

bool pool_fits_memory(const Scenario& s, const std::vector<workload::MemoryBreakdown>& memory) {
  const auto groups = stage_groups(s);
  for (std::size_t stage = 0; stage < memory.size() && stage < groups.size(); ++stage) {
    for (const std::size_t g : groups[stage]) {
      if (!workload::fits_memory(memory[stage], s.pool.groups[g].gpu)) return false;
    }
  }
  return true;
}

double pool_peak(const Scenario& s, compute::Dtype dtype) {
  double peak = 0;
  std::int64_t left = s.gpus;
  for (const PoolGroup& g : s.pool.groups) {
    const std::int64_t here = std::min(left, g.nodes * s.cluster.server.gpus);
    peak += static_cast<double>(here) * g.gpu.peak(dtype).per_second();
    left -= here;
  }
  return peak;
}

}  // namespace ctwin::replay
