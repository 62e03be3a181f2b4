#include "ctwin/replay/comm_groups.hpp"

#include <algorithm>
#include <numeric>
#include <map>
#include <string>
#include <utility>

#include "ctwin/collectives/predict.hpp"
#include "ctwin/core/error.hpp"

namespace ctwin::replay {
namespace {

// `k` GPUs of each server with their share of its NICs, PCIe switches and sockets: the members
// of a group that spans nodes with k members in each (NCCL then crosses NVLink inside a node and
// uses the k members' NICs between nodes). k = 1 is one rail's slice of a rail-optimized fabric.
fabric::ClusterSpec gpus_per_node_slice(fabric::ClusterSpec spec, int k) {
  auto& server = spec.server;
  const int gpus = server.gpus;
  server.nics.count = std::max(1, server.nics.count * k / gpus);
  server.pcie_switches = std::min(server.pcie_switches, k);
  server.cpus = std::min(server.cpus, k);
  if (server.cpus == 1) server.cpu_link.reset();
  server.gpus = k;
  spec.fabric.rails_per_leaf = std::gcd(spec.fabric.rails_per_leaf, server.nics.count);
  // Every slice of a node runs the same collective at once and, unlike a rail's leaves, the DCI
  // between sites carries them all: a slice gets its share of it.
  if (spec.fabric.sites) spec.fabric.sites->dci.bandwidth = spec.fabric.sites->dci.bandwidth * (static_cast<double>(k) / gpus);
  spec.name += k == 1 ? " (one rail's slice)" : " (" + std::to_string(k) + " GPUs of each node)";
  return spec;
}

// The spec a group spanning `sites` sites is predicted on: one site's fabric for 1, `sites` of
// the build's sites for more, the spec as given where the sites are not known (0).
fabric::ClusterSpec spanning_sites(fabric::ClusterSpec spec, int sites) {
  if (!spec.fabric.sites || sites <= 0) return spec;
  if (sites == 1) {
    spec.fabric.sites.reset();
  } else {
    spec.fabric.sites->count = sites;
  }
  return spec;
}

// The buffer nccl-tests would be asked for: whole elements, and for all_gather / reduce_scatter a
// whole number of per-rank shards.
std::int64_t query_bytes(collectives::Op op, GroupShape group, Bytes size, int element_bytes) {
  const std::int64_t elements = std::max<std::int64_t>(1, (size.count() + element_bytes - 1) / element_bytes);
  std::int64_t rounded = elements * element_bytes;
  if (op == collectives::Op::kAllGather || op == collectives::Op::kReduceScatter) {
    const std::int64_t unit = group.size * element_bytes;
    rounded = (rounded + unit - 1) / unit * unit;
  }
  return rounded;
}

}  // namespace

std::int64_t group_leader(GroupShape group, std::int64_t local_rank) {
  const std::int64_t block = group.size * group.stride;
  return local_rank / block * block + local_rank % group.stride;
}

std::vector<std::int64_t> group_members(GroupShape group, std::int64_t leader) {
  std::vector<std::int64_t> members;
  members.reserve(static_cast<std::size_t>(group.size));
  for (std::int64_t j = 0; j < group.size; ++j) members.push_back(leader + j * group.stride);
  return members;
}

std::vector<std::int64_t> group_leaders(GroupShape group, std::int64_t stage_gpus) {
  std::vector<std::int64_t> leaders;
  const std::int64_t block = group.size * group.stride;
  for (std::int64_t b = 0; b + block <= stage_gpus; b += block) {
    for (std::int64_t o = 0; o < group.stride; ++o) leaders.push_back(b + o);
  }
  return leaders;
}

std::optional<CollectivePrediction> CollectiveCache::find(const Key& key) const {
  const std::lock_guard lock(mutex_);
  const auto it = times_.find(key);
  if (it == times_.end()) return std::nullopt;
  return it->second;
}

void CollectiveCache::insert(const Key& key, CollectivePrediction prediction) {
  const std::lock_guard lock(mutex_);
  times_.emplace(key, prediction);
}

std::shared_ptr<const collectives::Plan> CollectiveCache::plan(const PlanKey& key,
                                                               const std::function<collectives::Plan()>& make) {
  const std::lock_guard lock(mutex_);
  auto& slot = plans_[key];
  if (!slot) slot = std::make_shared<const collectives::Plan>(make());
  return slot;
}

std::shared_ptr<const fabric::Fabric> CollectiveCache::fabric(const FabricKey& key,
                                                              const std::function<fabric::Fabric()>& build) {
  const std::lock_guard lock(mutex_);
  auto& slot = fabrics_[key];
  if (!slot) slot = std::make_shared<const fabric::Fabric>(build());
  return slot;
}

CollectiveTimes::CollectiveTimes(fabric::ClusterSpec cluster, network::ModelKind network, bool free,
                                 std::shared_ptr<CollectiveCache> cache, collectives::CollectiveTuning tuning)
    : cluster_(std::move(cluster)),
      network_(network),
      free_(free),
      tuning_(tuning),
      cache_(cache ? std::move(cache) : std::make_shared<CollectiveCache>()) {
  // A group's fabric is nodes of one server (a pool group's own via on_server), never a pool's.
  cluster_.node_groups.clear();
  cluster_.build_group_servers = false;
}
CollectiveTimes::~CollectiveTimes() = default;
CollectiveTimes::CollectiveTimes(CollectiveTimes&&) noexcept = default;

CollectiveTimes CollectiveTimes::on_server(const fabric::ServerSpec& server) const {
  fabric::ClusterSpec cluster = cluster_;
  cluster.server = server;
  cluster.server.gpu_arch = cluster_.server.gpu_arch;
  CollectiveTimes out(std::move(cluster), network_, free_, nullptr, tuning_);
  out.placement_ = placement_;
  out.stage_gpus_ = stage_gpus_;
  out.site_placement_ = site_placement_;
  out.site_gpus_ = site_gpus_;
  return out;
}

void CollectiveTimes::place(const Placement& placement, std::int64_t stage_gpus) {
  placement_ = placement;
  stage_gpus_ = stage_gpus;
  locate_sites(placement);
}

void CollectiveTimes::locate_sites(const Placement& placement) {
  if (!cluster_.fabric.sites) return;
  // As fabric::plan_topology fills them: ceil(nodes / sites) nodes to a site, in order.
  const std::int64_t node = cluster_.server.gpus;
  const std::int64_t nodes = (placement.cluster_gpus() + node - 1) / node;
  const std::int64_t count = cluster_.fabric.sites->count;
  site_placement_ = placement;
  site_gpus_ = (nodes + count - 1) / count * node;
}

int CollectiveTimes::sites_of(const std::vector<std::int64_t>& gpus) const {
  if (site_gpus_ <= 0) return 0;
  std::vector<std::int64_t> sites;
  for (const std::int64_t g : gpus) sites.push_back(g / site_gpus_);
  std::sort(sites.begin(), sites.end());
  return static_cast<int>(std::unique(sites.begin(), sites.end()) - sites.begin());
}

int CollectiveTimes::group_sites(GroupShape group, std::int64_t first) const {
  if (site_gpus_ <= 0) return 0;
  std::vector<std::int64_t> gpus;
  for (const std::int64_t m : group_members(group, first)) {
    if (m >= site_placement_->ranks()) return 0;  // a send past the last stage: none is made
    gpus.push_back(site_placement_->gpu(m));
  }
  return sites_of(gpus);
}

namespace {

// How a group's members sit on the build's nodes: runs of consecutive members in one node.
// Uniform when every run but the last holds `per_node` members, the last at most that many, and
// no two runs share a node: what a fabric of `per_node` GPUs per node assumes (0: one node).
struct Layout {
  bool uniform = true;
  std::int64_t per_node = 0;
  std::int64_t largest_run = 0;
};

Layout layout_of(const std::vector<std::int64_t>& gpus, std::int64_t node_gpus) {
  std::vector<std::int64_t> runs;
  std::vector<std::int64_t> nodes;
  for (std::size_t j = 0; j < gpus.size(); ++j) {
    const std::int64_t node = gpus[j] / node_gpus;
    if (j == 0 || node != nodes.back()) {
      runs.push_back(0);
      nodes.push_back(node);
    }
    ++runs.back();
  }
  Layout layout;
  layout.largest_run = *std::max_element(runs.begin(), runs.end());
  if (runs.size() == 1) return layout;
  layout.per_node = runs.front();
  for (std::size_t r = 0; r < runs.size(); ++r) {
    if (r + 1 < runs.size() ? runs[r] != layout.per_node : runs[r] > layout.per_node) layout.uniform = false;
  }
  std::sort(nodes.begin(), nodes.end());
  if (std::adjacent_find(nodes.begin(), nodes.end()) != nodes.end()) layout.uniform = false;
  return layout;
}

}  // namespace

std::int64_t CollectiveTimes::members_per_node(GroupShape group) const {
  const std::int64_t node = cluster_.server.gpus;
  if (placement_ && group.size > 1 && (group.size - 1) * group.stride < stage_gpus_) {
    // The shape's group of stage 0 where the placement puts it.
    std::vector<std::int64_t> gpus;
    for (const std::int64_t m : group_members(group, 0)) gpus.push_back(placement_->gpu(m));
    const Layout layout = layout_of(gpus, node);
    if (layout.uniform) return layout.per_node;
  }
  if (group.stride * group.size <= node) return 0;
  // Members per node of a group spanning nodes: consecutive members are `stride` GPUs apart.
  return std::clamp<std::int64_t>(node / group.stride, 1, group.size);
}

std::shared_ptr<const fabric::Fabric> CollectiveTimes::fabric_for(GroupShape group, std::int64_t per_node, int sites) {
  return cache_->fabric({per_node, group.size, sites}, [&] {
    const fabric::ClusterSpec spec = spanning_sites(cluster_, sites);
    return fabric::Fabric(per_node == 0 ? spec : gpus_per_node_slice(spec, static_cast<int>(per_node)),
                          static_cast<int>(group.size));
  });
}

SimTime CollectiveTimes::placed_time(const CommCall& call, SimTime isolated, int stage, std::int64_t leader) {
  if (!placement_ || free_ || call.group.size <= 1 || call.size.count() <= 0) return isolated;
  const GroupShape group = call.group;
  if ((group.size - 1) * group.stride >= stage_gpus_) return isolated;  // not a group inside a stage
  const auto key = std::tuple{static_cast<int>(call.op), group, call.size.count(), call.element_bytes, stage, leader};
  if (const auto it = placed_.find(key); it != placed_.end()) return it->second;
  std::vector<std::int64_t> leaders = leader < 0 ? group_leaders(group, stage_gpus_) : std::vector{leader};
  if (leaders.empty()) leaders.push_back(0);
  const std::int64_t node = cluster_.server.gpus;
  const std::int64_t reference = members_per_node(group);
  const int reference_sites = group_sites(group, 0);
  const double reference_s =
      predict(call.op, group, reference, reference_sites, call.size, call.element_bytes).time.seconds();
  std::map<std::vector<std::int64_t>, SimTime> seen;  // by members' nodes and places in them, relative
  SimTime worst;
  for (const std::int64_t l : leaders) {
    std::vector<std::int64_t> gpus;
    for (const std::int64_t m : group_members(group, l)) gpus.push_back(placement_->gpu(std::int64_t{stage} * stage_gpus_ + m));
    const Layout layout = layout_of(gpus, node);
    const int sites = sites_of(gpus);
    SimTime time = isolated;
    if (!layout.uniform || layout.per_node != reference || sites != reference_sites) {
      // Groups alike up to a shift by whole nodes, over as many sites, cost the same.
      std::vector<std::int64_t> shape;
      const std::int64_t first_node = gpus.front() / node;
      for (const std::int64_t g : gpus) shape.push_back(g - first_node * node);
      shape.push_back(-sites);
      auto found = seen.find(shape);
      if (found == seen.end()) {
        const double own_s =
            layout.uniform ? predict(call.op, group, layout.per_node, sites, call.size, call.element_bytes).time.seconds()
                           : remapped_time(call, gpus, layout.largest_run).seconds();
        // The op's time scaled by what this layout costs against the shape's own: ops that carry
        // part of a collective (a chunk of it) keep their share.
        const SimTime scaled = reference_s > 0 ? SimTime::from_seconds(isolated.seconds() * own_s / reference_s) : isolated;
        found = seen.emplace(std::move(shape), scaled).first;
      }
      time = found->second;
    }
    worst = std::max(worst, time);
  }
  placed_.emplace(key, worst);
  return worst;
}

SimTime CollectiveTimes::remapped_time(const CommCall& call, const std::vector<std::int64_t>& gpus,
                                       std::int64_t largest_run) {
  using collectives::Algorithm;
  const std::int64_t node = cluster_.server.gpus;
  // The plan's structure from a fabric with the largest run per node (its rings and channels
  // span nodes), then each member moved to its GPU of the build.
  const std::int64_t per_node = largest_run >= call.group.size ? 0 : largest_run;
  const int sites = sites_of(gpus);
  const auto shaped = fabric_for(call.group, per_node, sites);
  Algorithm algorithm = predict(call.op, call.group, per_node, sites, call.size, call.element_bytes).algorithm;
  // NVLink SHARP reduces inside one NVSwitch: members in other domains cannot join it, so such a
  // group runs rings, as NCCL does where NVLS does not apply.
  if (algorithm == Algorithm::kNvls || algorithm == Algorithm::kNvlsTree) algorithm = Algorithm::kRing;
  const int channels = tuning_.channels > 0 ? tuning_.channels : collectives::default_channels(*shaped);
  collectives::Plan plan = collectives::make_plan(call.op, algorithm, *shaped, channels);
  const std::int64_t build_gpus = placement_->cluster_gpus();
  const auto build = cache_->fabric({-1, build_gpus, 0}, [&] { return fabric::Fabric(cluster_, static_cast<int>(build_gpus)); });
  const bool nvlink = cluster_.server.nvlink.has_value();
  for (auto& phase : plan.phases) {
    for (auto& t : phase.transfers) {
      t.src = static_cast<fabric::GpuId>(gpus[static_cast<std::size_t>(t.src)]);
      t.dst = static_cast<fabric::GpuId>(gpus[static_cast<std::size_t>(t.dst)]);
      const bool across = build->node_of(t.src) != build->node_of(t.dst);
      t.hop = across ? collectives::HopClass::kNet : nvlink ? collectives::HopClass::kNvlink : collectives::HopClass::kPcie;
      // NCCL >= 2.12 sends cross-node traffic through the NVLink peer on the right rail (PXN).
      t.route.pxn = across && nvlink && t.route.leg == fabric::SwitchLeg::kWhole;
    }
  }
  std::vector<std::int64_t> nodes;
  for (const std::int64_t g : gpus) nodes.push_back(g / node);
  std::sort(nodes.begin(), nodes.end());
  plan.nodes = static_cast<int>(std::unique(nodes.begin(), nodes.end()) - nodes.begin());
  plan.multi_node = plan.nodes > 1;
  return collectives::plan_time(plan, *build, Bytes(query_bytes(call.op, call.group, call.size, call.element_bytes)),
                                call.element_bytes, network_, tuning_);
}

CollectivePrediction CollectiveTimes::predict(collectives::Op op, GroupShape group, std::int64_t per_node, int sites,
                                              Bytes size, int element_bytes) {
  if (free_ || group.size <= 1 || size.count() <= 0) return {};
  const auto key = std::tuple{static_cast<int>(op), group, per_node, sites, size.count(), element_bytes};
  if (const auto known = cache_->find(key)) return *known;
  collectives::CollectiveQuery query;
  query.op = op;
  query.sizes = {Bytes(query_bytes(op, group, size, element_bytes))};
  query.element_bytes = element_bytes;
  query.network = network_;
  query.tuning = tuning_;
  const auto result = collectives::predict_collective(*fabric_for(group, per_node, sites), query);
  CTWIN_ASSERT(result.rows.size() == 1, "one size asked, one row returned");
  ++predictions_;
  const CollectivePrediction prediction{result.rows.front().time, result.rows.front().algorithm};
  cache_->insert(key, prediction);
  return prediction;
}

SimTime CollectiveTimes::send_time(const CommCall& call, SimTime isolated, int from, int to) {
  if (site_gpus_ <= 0 || free_ || call.group.size != 2 || call.size.count() <= 0 || stage_gpus_ <= 0) return isolated;
  auto [it, added] = sends_.try_emplace({from, to, call.size.count()}, 1.0);
  if (added) {
    const int sites = send_sites(from, to);
    const std::int64_t per_node = members_per_node(call.group);
    const int reference_sites = group_sites(call.group, 0);
    if (sites != reference_sites) {
      const double reference_s =
          predict(call.op, call.group, per_node, reference_sites, call.size, call.element_bytes).time.seconds();
      const double own_s = predict(call.op, call.group, per_node, sites, call.size, call.element_bytes).time.seconds();
      if (reference_s > 0) it->second = own_s / reference_s;
    }
  }
  return it->second == 1.0 ? isolated : SimTime::from_seconds(isolated.seconds() * it->second);
}

int CollectiveTimes::send_sites(int from, int to) const {
  // The send crosses sites if any rank's peer sits in another site than the rank.
  int sites = 1;
  for (std::int64_t l = 0; l < stage_gpus_ && sites == 1; ++l) {
    sites = sites_of({site_placement_->gpu(from * stage_gpus_ + l), site_placement_->gpu(to * stage_gpus_ + l)});
  }
  return sites;
}

std::shared_ptr<const fabric::Fabric> CollectiveTimes::crossing_send_fabric(const CommCall& call, int from, int to) {
  if (site_gpus_ <= 0 || free_ || call.group.size != 2 || call.size.count() <= 0 || stage_gpus_ <= 0) return nullptr;
  const int sites = send_sites(from, to);
  return sites > 1 ? fabric_for(call.group, members_per_node(call.group), sites) : nullptr;
}

std::shared_ptr<const fabric::Fabric> CollectiveTimes::spanning_group_fabric(const CommCall& call) {
  if (site_gpus_ <= 0 || free_ || call.group.size <= 1 || call.size.count() <= 0) return nullptr;
  const int sites = group_sites(call.group, 0);
  return sites > 1 ? fabric_for(call.group, members_per_node(call.group), sites) : nullptr;
}

std::shared_ptr<const collectives::Plan> CollectiveTimes::plan(const CommCall& call) {
  if (free_ || call.group.size <= 1 || call.size.count() <= 0) return nullptr;
  const collectives::Algorithm algorithm = predict(call.op, call.group, call.size, call.element_bytes).algorithm;
  const std::int64_t per_node = members_per_node(call.group);
  const int sites = group_sites(call.group, 0);
  const auto built = fabric_for(call.group, per_node, sites);
  return cache_->plan({static_cast<int>(call.op), call.group, per_node, sites, static_cast<int>(algorithm)}, [&] {
    // The channels predict_collective planned with.
    const int channels = tuning_.channels > 0 ? tuning_.channels : collectives::default_channels(*built);
    return collectives::make_plan(call.op, algorithm, *built, channels);
  });
}

}  // namespace ctwin::replay
