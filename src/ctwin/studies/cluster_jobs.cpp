#include "ctwin/studies/cluster_jobs.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <set>
#include <utility>

#include "ctwin/api/data_dir.hpp"
#include "ctwin/api/scenario.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/core/input_file.hpp"
#include "ctwin/core/json_reader.hpp"
#include "ctwin/core/limits.hpp"
#include "ctwin/core/overrides.hpp"
#include "ctwin/fabric/fabric.hpp"
#include "ctwin/replay/cluster_replay.hpp"
#include "ctwin/replay/dp_shares.hpp"
#include "ctwin/replay/node_pool.hpp"
#include "ctwin/replay/node_placement.hpp"
#include "ctwin/studies/cluster_background.hpp"

namespace ctwin::api {
namespace {

// Most contended links reported per job.
constexpr std::size_t kContendedLinks = 3;
// Steps a window may hold: each is a full step replay of every job.
constexpr int kMostClusterSteps = 100;
// A background stream's chunks each last this share of the shortest job's step alone at the
// stream's rate: enough chunks per window that its rate is measured over nearly all of it, few
// enough that the gaps between them (a path's latency each) stay far below 1 % of the time.
constexpr double kBackgroundChunksPerStep = 32;
// A stream that got less than this share of its rate is reported as held back by full links
// (the gaps between chunks alone cost it far less).
constexpr double kBackgroundFullShare = 0.99;

// One job as the file gives it, before it is placed.
struct ClusterJobEntry {
  std::string pointer;  // "/jobs/1"
  std::string name;
  std::string scenario;
  replay::Scenario resolved;
  std::optional<replay::PlacementPolicy> policy;  // else `nodes`
  std::vector<std::int64_t> nodes;
  double start_s = 0;
  std::optional<double> phase_shift;
  // On a pool balanced by speed with replicas on different kinds: its DP shares and the class of
  // replicas whose step it is (the slowest alone, as `run` reports it, replay/dp_shares.hpp).
  std::vector<std::int64_t> dp_shares;
  std::optional<replay::Scenario> share_class;
  [[nodiscard]] const replay::Scenario& replayed() const { return share_class ? *share_class : resolved; }
};

// A path inside the JOBS file: next to it first, then as the data root resolves it.
std::string cluster_file_path(const std::string& name, const std::filesystem::path& dir, DataKind kind) {
  const std::filesystem::path local = dir / name;
  std::error_code error;
  if (!std::filesystem::path(name).is_absolute() && std::filesystem::exists(local, error)) return local.string();
  return resolve_named(name, kind).string();
}

std::vector<std::int64_t> read_cluster_nodes(const nlohmann::json& list, const std::string& source,
                                             const std::string& pointer, std::int64_t build_nodes) {
  if (!list.is_array() || list.empty()) throw InputError(source, pointer, "expected a list of the build's nodes, in rank order");
  std::vector<std::int64_t> nodes;
  std::set<std::int64_t> seen;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const auto& n = list[i];
    const std::string at = pointer + "/" + std::to_string(i);
    if (!n.is_number_integer() || n.get<std::int64_t>() < 0) throw InputError(source, at, "expected a node index from 0");
    const auto node = n.get<std::int64_t>();
    if (node >= build_nodes) {
      throw InputError(source, at, "node " + std::to_string(node) + " is beyond the build of " + std::to_string(build_nodes) + " nodes");
    }
    if (!seen.insert(node).second) throw InputError(source, at, "node " + std::to_string(node) + " is listed twice");
    nodes.push_back(node);
  }
  return nodes;
}

// The job's scenario on the build: the file's changes, then the build's cluster and flow network.
replay::Scenario resolve_cluster_job(JsonObjectReader& reader, const ClusterQuery& query, const std::string& pointer,
                                     const nlohmann::json& build, EvalContext& context, std::string& named) {
  named = reader.string("scenario");
  std::vector<std::string> changes = reader.string_list_or_empty("set");
  for (std::size_t i = 0; i < changes.size(); ++i) {
    const std::string path = changes[i].substr(0, changes[i].find('='));
    if (path.rfind("cluster", 0) == 0 || path.rfind("network", 0) == 0 || path.rfind("placement", 0) == 0) {
      throw InputError(query.source, pointer + "/set/" + std::to_string(i),
                       "a job cannot change " + path + ": the JOBS file's cluster, nodes and placement decide it");
    }
  }
  Scenario scenario = Scenario::load(cluster_file_path(named, query.dir, DataKind::kScenario))
                          .with_assignments(changes)
                          .with("cluster", build)
                          .with("network", "flow");
  try {
    return scenario.resolve(&context.profiles());
  } catch (const InputError& e) {
    if (e.source() != "--set") throw;
    throw InputError(query.source, pointer + "/set", e.pointer().empty() ? e.message() : e.pointer() + ": " + e.message());
  }
}

// Where a policy or a node list puts the job, given the nodes already held.
replay::Placement place_cluster_job(const ClusterJobEntry& job, std::int64_t build_nodes, const std::vector<std::int64_t>& taken,
                                    const std::string& source) {
  replay::PlacementSpec spec;
  spec.named = true;
  spec.build_nodes = build_nodes;
  if (job.policy) {
    spec.policy = *job.policy;
    spec.taken = taken;
  } else {
    spec.policy = replay::PlacementPolicy::kNodes;
    spec.nodes = job.nodes;
  }
  const replay::Scenario& s = job.resolved;
  try {
    return replay::place_on_nodes(spec, s.gpus, replay::nvlink_block(s.split),
                                  s.split.tp * s.split.cp * s.split.data_parallel(s.gpus), s.cluster, source);
  } catch (const InputError& e) {
    const std::string field = e.pointer().rfind("/placement/nodes", 0) == 0
                                  ? "/nodes" + e.pointer().substr(std::string("/placement/nodes").size())
                                  : "/placement";
    throw InputError(source, job.pointer + field, e.message());
  }
}

ClusterStepFigures cluster_figures_of(const replay::Scenario& scenario, const replay::ReplayResult& step) {
  const replay::StepReport report = replay::make_step_report(scenario, step);
  return {report.step_time_s, report.breakdown.exposed_comm_s.total(), report.tokens_per_s};
}

std::vector<ContendedLink> cluster_contended_links(const fabric::Fabric& build, const std::vector<replay::JobReplay>& jobs,
                                           std::size_t j) {
  std::vector<ContendedLink> links;
  const auto& own = jobs[j].link_bytes;
  for (std::size_t l = 0; l < own.size(); ++l) {
    if (own[l] <= 0) continue;
    double others = 0;
    for (std::size_t k = 0; k < jobs.size(); ++k) {
      if (k != j) others += jobs[k].link_bytes[l];
    }
    if (others <= 0) continue;
    const auto id = static_cast<fabric::LinkId>(l);
    links.push_back({static_cast<std::int64_t>(l), replay::link_label(build, id), fabric::to_string(build.link(id).kind),
                     own[l], others});
  }
  std::stable_sort(links.begin(), links.end(), [](const ContendedLink& a, const ContendedLink& b) {
    return std::min(a.bytes, a.others_bytes) > std::min(b.bytes, b.others_bytes);
  });
  if (links.size() > kContendedLinks) links.resize(kContendedLinks);
  return links;
}

}  // namespace

ClusterQuery cluster_query_from_file(const std::string& path) {
  const std::filesystem::path file = resolve_data_path(path);
  ClusterQuery query;
  query.document = load_json_file(file);
  query.source = input_source_name(file);
  query.dir = file.parent_path().empty() ? std::filesystem::path(".") : file.parent_path();
  return query;
}

ClusterStudy evaluate_cluster(const ClusterQuery& query, EvalContext& context) {
  const std::string& source = query.source;
  JsonObjectReader reader(query.document, source, "");
  ClusterStudy study;
  study.source = source;
  (void)reader.string_or("description", "");
  // The topology as every job gets it: read once, the file's changes applied (so that a job's
  // scenario holds it inline and cannot name another).
  nlohmann::json build_document = load_json_file(cluster_file_path(reader.string("cluster"), query.dir, DataKind::kTopology));
  study.build_nodes = reader.integer("nodes", 1, limits::kMaxGpus);
  const std::vector<std::string> build_changes = reader.string_list_or_empty("set");
  try {
    apply_overrides(build_document, build_changes);
  } catch (const InputError& e) {
    throw InputError(source, "/set", e.message());
  }
  study.steps = static_cast<int>(reader.integer_or("steps", 1, kMostClusterSteps, 1));
  if (query.steps) {
    if (*query.steps < 1 || *query.steps > kMostClusterSteps) {
      throw InputError("--steps", "", "expected 1 to " + std::to_string(kMostClusterSteps) + " steps per job");
    }
    study.steps = *query.steps;
  }
  const double fragmentation = reader.number_or("fragmentation", 0, 0.99, 0);
  const auto seed = static_cast<std::uint64_t>(reader.integer_or("seed", 0, limits::kMaxGpus, 1));
  const nlohmann::json* background_list = reader.optional("background");
  const auto& list = reader.required("jobs");
  if (!list.is_array() || list.empty()) throw InputError(source, "/jobs", "expected a list of jobs");

  std::vector<ClusterJobEntry> entries;
  std::set<std::string> names;
  for (std::size_t j = 0; j < list.size(); ++j) {
    ClusterJobEntry job;
    job.pointer = "/jobs/" + std::to_string(j);
    JsonObjectReader r(list[j], source, job.pointer);
    job.name = r.string_or("name", "job" + std::to_string(j));
    (void)r.string_or("description", "");
    if (!names.insert(job.name).second) throw InputError(source, job.pointer + "/name", "two jobs are named " + job.name);
    job.resolved = resolve_cluster_job(r, query, job.pointer, build_document, context, job.scenario);
    if (const auto* nodes = r.optional("nodes")) {
      if (r.has("placement")) throw InputError(source, job.pointer + "/nodes", "a job takes a node list or a placement, not both");
      job.nodes = read_cluster_nodes(*nodes, source, job.pointer + "/nodes", study.build_nodes);
    } else {
      job.policy = replay::node_policy_named(r.choice("placement", {"packed", "spread", "topology_aware", "fragmented"}));
    }
    if (r.has("start_s") && r.has("phase_shift")) {
      throw InputError(source, job.pointer + "/phase_shift", "a job takes a start_s or a phase_shift, not both");
    }
    job.start_s = r.number_or("start_s", 0, 86400, 0);
    if (r.has("phase_shift")) job.phase_shift = r.number("phase_shift", 0, 0.999);
    r.finish();
    if (!entries.empty() && job.resolved.cluster_key != entries.front().resolved.cluster_key) {
      throw InputError(source, job.pointer + "/scenario", "builds another cluster than the jobs before it (a calibration?)");
    }
    entries.push_back(std::move(job));
  }
  reader.finish();

  // Node lists first (they must not overlap), then the policies in file order on what is left.
  const std::int64_t domain = std::max(1, entries.front().resolved.cluster.server.gpus);
  study.build_gpus = study.build_nodes * domain;
  if (study.build_gpus > limits::kMaxGpus) throw InputError(source, "/nodes", "a build beyond any ctwin models");
  const auto busy = replay::busy_nodes(study.build_nodes, fragmentation, seed);
  study.busy_nodes = static_cast<std::int64_t>(busy.size());
  std::map<std::int64_t, std::string> holder;  // node → who holds it
  for (const auto n : busy) holder[n] = "another tenant (fragmentation)";
  std::vector<replay::Placement> placements(entries.size());
  const auto hold = [&](std::size_t j, const replay::Placement& placed) {
    for (const auto n : placed.footprint()->node_list) holder[n] = "job " + entries[j].name;
    placements[j] = placed;
  };
  for (std::size_t j = 0; j < entries.size(); ++j) {
    if (entries[j].policy) continue;
    for (std::size_t i = 0; i < entries[j].nodes.size(); ++i) {
      if (const auto it = holder.find(entries[j].nodes[i]); it != holder.end()) {
        throw InputError(source, entries[j].pointer + "/nodes/" + std::to_string(i),
                         "node " + std::to_string(entries[j].nodes[i]) + " is held by " + it->second);
      }
    }
    hold(j, place_cluster_job(entries[j], study.build_nodes, {}, source));
  }
  std::vector<bool> dropped(entries.size(), false);
  for (std::size_t j = 0; j < entries.size(); ++j) {
    if (!entries[j].policy) continue;
    std::vector<std::int64_t> taken;
    for (const auto& [n, who] : holder) taken.push_back(n);
    try {
      hold(j, place_cluster_job(entries[j], study.build_nodes, taken, source));
    } catch (const InputError& e) {
      if (!query.drop_unplaced || e.pointer() != entries[j].pointer + "/placement") throw;
      study.unplaced.push_back(entries[j].name);
      dropped[j] = true;
    }
  }
  study.cluster = entries.front().resolved.cluster.name;
  for (std::size_t j = entries.size(); j-- > 0;) {
    if (!dropped[j]) continue;
    entries.erase(entries.begin() + static_cast<std::ptrdiff_t>(j));
    placements.erase(placements.begin() + static_cast<std::ptrdiff_t>(j));
  }
  if (entries.empty()) return study;
  for (std::size_t j = 0; j < entries.size(); ++j) {
    // The job runs on its nodes as a node list of the whole build would put it.
    replay::PlacementSpec& spec = entries[j].resolved.placement;
    spec = replay::PlacementSpec{};
    spec.policy = replay::PlacementPolicy::kNodes;
    spec.named = true;
    spec.build_nodes = study.build_nodes;
    spec.nodes = placements[j].footprint()->node_list;
  }

  const replay::Scenario& first = entries.front().resolved;
  // One build for every job: a pool's groups with their own servers lie in one order on it.
  for (const ClusterJobEntry& job : entries) {
    if (replay::pool_build_key(job.resolved) != replay::pool_build_key(first)) {
      throw InputError(source, job.pointer + "/scenario",
                       "lays the node groups with their own servers in another order (pool.order) than job " +
                           entries.front().name + ": the build has one");
    }
  }
  const auto build =
      context.fabric(first.cluster_key + replay::pool_build_key(first), replay::pool_build(first), study.build_gpus);
  network::require_ecmp_routing(*build, "flow");
  for (ClusterJobEntry& job : entries) {
    // As `run` replays DP shares: the slowest class of replicas alone stands for the job.
    replay::DpShares shares = replay::dp_speed_shares(job.resolved);
    if (shares.classes.empty()) continue;
    double slowest_s = 0;
    for (replay::Scenario& alike : shares.classes) {
      const auto replayed = replay::replay_jobs({{&alike, SimTime(), 1}}, build, false);
      const double step_s = replayed.jobs.front().steps.front().step_time.seconds();
      if (!job.share_class || step_s > slowest_s) {
        slowest_s = step_s;
        job.share_class = std::move(alike);
      }
    }
    job.dp_shares = std::move(shares.per_replica);
  }
  const std::vector<ClusterBackgroundStream> streams =
      background_list ? read_cluster_background(*background_list, source, *build) : std::vector<ClusterBackgroundStream>{};
  // Alone: one step of each job by itself on the build.
  std::vector<ClusterStepFigures> alone;
  for (const ClusterJobEntry& job : entries) {
    const auto replayed = replay::replay_jobs({{&job.replayed(), SimTime(), 1}}, build, false);
    alone.push_back(cluster_figures_of(job.resolved, replayed.jobs.front().steps.front()));
  }
  replay::ClusterBackground background;
  std::vector<ClusterStepFigures> alone_with_background;
  if (!streams.empty()) {
    double shortest_s = alone.front().step_time_s;
    for (const auto& a : alone) shortest_s = std::min(shortest_s, a.step_time_s);
    background.chunk = std::max(SimTime::from_ps(1000000), SimTime::from_seconds(shortest_s / kBackgroundChunksPerStep));
    for (const auto& s : streams) background.streams.push_back(s.stream);
    for (const ClusterJobEntry& job : entries) {
      const auto replayed = replay::replay_jobs({{&job.replayed(), SimTime(), 1}}, build, false, &background);
      alone_with_background.push_back(cluster_figures_of(job.resolved, replayed.jobs.front().steps.front()));
    }
  }
  std::vector<replay::ClusterJob> jobs;
  for (std::size_t j = 0; j < entries.size(); ++j) {
    const double start = entries[j].phase_shift ? *entries[j].phase_shift * alone[j].step_time_s : entries[j].start_s;
    jobs.push_back({&entries[j].replayed(), SimTime::from_seconds(start), study.steps});
  }
  const auto shared = replay::replay_jobs(jobs, build, true, &background);
  study.events = shared.events;
  for (std::size_t i = 0; i < streams.size(); ++i) {
    // A schedule's ask is its mean over the span its delivery is measured on.
    const double asked = streams[i].stream.mean_rate(shared.background[i].last_arrival).gigabits_per_second();
    const double got = shared.background[i].achieved().gigabits_per_second();
    study.background.push_back({streams[i].entry, streams[i].label, asked, got, got < kBackgroundFullShare * asked});
  }
  for (std::size_t j = 0; j < entries.size(); ++j) {
    ClusterJobEntry& entry = entries[j];
    const replay::JobReplay& replayed = shared.jobs[j];
    ClusterJobResult out;
    out.name = entry.name;
    out.scenario = entry.scenario;
    out.placement = entry.policy ? replay::placement_name(*entry.policy) : "nodes";
    out.nodes = placements[j].footprint()->node_list;
    out.leaves = placements[j].footprint()->leaves;
    out.start_s = jobs[j].start.seconds();
    out.phase_shift = entry.phase_shift.value_or(0);
    out.alone = alone[j];
    out.dp_micro_batches = entry.dp_shares;
    for (std::size_t s = 0; s < replayed.steps.size(); ++s) {
      out.shared.push_back(cluster_figures_of(entry.resolved, replayed.steps[s]));
      out.shared_mean.step_time_s += out.shared.back().step_time_s / static_cast<double>(replayed.steps.size());
      out.shared_mean.exposed_comm_s += out.shared.back().exposed_comm_s / static_cast<double>(replayed.steps.size());
      study.window_end_s = std::max(study.window_end_s, (replayed.starts[s] + replayed.steps[s].step_time).seconds());
    }
    out.shared_mean.tokens_per_s = out.alone.step_time_s > 0 ? out.alone.tokens_per_s * out.alone.step_time_s / out.shared_mean.step_time_s : 0;
    out.slowdown = out.shared_mean.step_time_s / out.alone.step_time_s;
    out.fabric_bytes = static_cast<double>(replayed.fabric_bytes.count());
    out.contended = cluster_contended_links(*build, shared.jobs, j);
    if (!streams.empty()) {
      out.alone_with_background = alone_with_background[j];
      out.background_slowdown = alone_with_background[j].step_time_s / out.alone.step_time_s;
    }
    out.resolved = std::move(entry.resolved);
    study.jobs.push_back(std::move(out));
  }
  return study;
}

}  // namespace ctwin::api
