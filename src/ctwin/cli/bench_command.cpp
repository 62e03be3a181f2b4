// ctwin bench: the speed figures the README quotes, measured on this machine.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <iostream>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "ctwin/api/public_analysis.hpp"
#include "ctwin/api/public_acceptance.hpp"
#include "ctwin/api/evaluate.hpp"
#include "ctwin/api/gpu_profile.hpp"
#include "ctwin/api/public_studies.hpp"
#include "ctwin/api/public_plan.hpp"
#include "ctwin/core/json_text.hpp"
#include "ctwin/core/parallel_for.hpp"
#include "ctwin/cli/command_pattern.hpp"
#include "ctwin/cli/commands.hpp"
#include "ctwin/cli/fabric_options.hpp"
#include "ctwin/cli/output.hpp"
#include "ctwin/cli/peak_rss.hpp"
#include "ctwin/api/public_collectives.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/core/overrides.hpp"
#include "ctwin/core/unit_parse.hpp"
#include "ctwin/api/public_fabric.hpp"
#include "ctwin/api/public_network.hpp"
#include "ctwin/api/public_replay.hpp"

namespace ctwin::cli {
namespace {

using Clock = std::chrono::steady_clock;

struct BenchRow {
  std::string name;
  std::string what;
  double wall_s = 0;
  std::uint64_t events = 0;  // 0 where events are not the measure
  std::string target;
  bool met = false;
  double peak_rss_gib = 0;
};

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

BenchRow bench_engine() {
  engine::Simulator simulator;
  constexpr int kChains = 1000;
  constexpr int kHops = 5000;
  // Each chain reschedules itself: the queue stays at kChains entries, as in a busy model.
  std::vector<int> left(kChains, kHops);
  std::function<void(int)> hop = [&](int chain) {
    if (--left[static_cast<std::size_t>(chain)] > 0) {
      simulator.schedule_in(SimTime::from_ps(1 + chain % 7), [&hop, chain] { hop(chain); });
    }
  };
  for (int c = 0; c < kChains; ++c) simulator.schedule_in(SimTime(), [&hop, c] { hop(c); });
  const auto start = Clock::now();
  simulator.run();
  const double wall = seconds_since(start);
  return {"engine", "5M self-rescheduling events, 1000 in the queue", wall, simulator.events_processed(), "-", true,
          peak_rss_gib()};
}

BenchRow bench_fabric_build(const std::string& cluster, int gpus, const char* name = "fabric-build") {
  const auto spec = fabric::load_cluster(resolve_data_path(cluster));
  const auto start = Clock::now();
  const fabric::Fabric built(spec, gpus);
  const double wall = seconds_since(start);
  const double rss = peak_rss_gib();
  return {name, std::to_string(gpus) + " GPUs of " + spec.name + ", " + std::to_string(built.topology().levels()) +
                              " tiers, " + std::to_string(built.links().size()) + " links",
          wall, 0, "< 2 s, < 4 GiB", wall < 2.0 && rss < 4.0, rss};
}

BenchRow bench_flow(const std::string& name, const std::string& cluster, int gpus, int steps, Bytes size, bool pxn,
                    bool adaptive = false) {
  api::Build build;
  build.cluster = cluster;
  build.gpus = gpus;
  // Adaptive routing splits each transfer over its equal-cost paths: as many flows again as a
  // leaf has uplinks, the cost this case watches.
  if (adaptive) build.changes.push_back(parse_override("fabric.routing=adaptive"));
  const fabric::Fabric built(api::load_build(build), gpus);
  const auto pattern = network::make_pattern("alltoall_chain", built, {size, pxn, steps, 1});
  engine::Simulator simulator;
  network::FlowModel model(built, simulator);
  const auto start = Clock::now();
  const auto result = network::run_pattern(model, pattern);
  const double wall = seconds_since(start);
  // A flow event is a flow starting or finishing.
  const std::uint64_t flow_events = result.stats.started + result.stats.completed;
  return {name,
          std::to_string(gpus) + " GPUs, " + std::to_string(steps) + " chained " + format_bytes(size) +
              " exchanges each" + (pxn ? " with PXN" : "") + (adaptive ? ", adaptive routing" : "") + ", " +
              std::to_string(model.solves()) + " solves of " +
              std::to_string(model.solved_flows() / std::max<std::uint64_t>(1, model.solves())) + " flows on average",
          wall, flow_events, ">= 1M flow events/s", static_cast<double>(flow_events) / wall >= 1e6, peak_rss_gib()};
}

// The acceptance sweep of the communication twin: nccl-tests' all_reduce from 8 B to 8 GiB,
// every algorithm and protocol tried for every size, timed from building the fabric to the
// last row.
BenchRow bench_collective(const std::string& name, const std::string& cluster, int gpus, const std::string& network,
                          double target_s) {
  const auto spec = api::attach_gpu_arch(fabric::load_cluster(resolve_data_path(cluster)));
  collectives::CollectiveQuery query;
  query.op = collectives::Op::kAllReduce;
  query.sizes = collectives::size_sweep(Bytes(8), Bytes(std::int64_t{8} << 30), 2);
  query.network = network_flag(network);
  const auto start = Clock::now();
  const fabric::Fabric built(spec, gpus);
  const auto result = collectives::predict_collective(built, query);
  const double wall = seconds_since(start);
  const auto& last = result.rows.back();
  std::string target = "< " + fixed(target_s, 0) + " s";
  return {name,
          std::to_string(gpus) + " GPUs of " + spec.name + ", all_reduce 8 B..8 GiB, auto, " + network + "; 8 GiB: " +
              std::string(collectives::name(last.algorithm)) + "/" + std::string(collectives::name(last.protocol)) +
              " " + fixed(last.busbw_GBps, 1) + " GB/s busbw",
          wall, result.events, target, wall < target_s, peak_rss_gib()};
}

// One training step at 16,384 GPUs, from reading the scenario to the report: issue 5's case,
// Llama 3 405B on H100 with tp 8, cp 1, pp 16, dp 128, sequence 8192, global batch 2048 (its 126
// layers as 7 + 14 × 8 + 7 over the stages).
BenchRow bench_run(const std::string& name, const std::string& network, double target_s, bool adaptive = false,
                   const std::string& cluster = "") {
  const auto start = Clock::now();
  std::vector<std::string> overrides{"network=" + network};
  if (adaptive) overrides.emplace_back("cluster.fabric.routing=adaptive");
  if (!cluster.empty()) overrides.emplace_back("cluster=" + cluster);
  const auto scenario =
      replay::load_scenario(resolve_data_path("scenarios/llama3-405b-h100-16k.json"), CTWIN_DATA_DIR, overrides);
  const auto step = replay::simulate_step(scenario);
  const double wall = seconds_since(start);
  const double rss = peak_rss_gib();
  return {name,
          "Llama 3 405B, 16384 H100, tp 8 pp 16 dp 128, " + network + (adaptive ? ", adaptive routing" : "") +
              (cluster.empty() ? "" : ", " + cluster) + "; step " + fixed(step.report.step_time_s, 3) +
              " s, MFU " + fixed(100 * step.report.mfu, 1) + " %",
          wall, step.report.events, "< " + fixed(target_s, 0) + " s, < 4 GiB", wall < target_s && rss < 4.0, rss};
}

// A planner's or notebook's pattern: 1,000 nearby scenarios through one EvalContext, each the
// default scenario (Llama 3 8B on 64 H100, pp 2) on the analytical network with another TP
// (1, 2, 4, 8 in turn) and 1..32 micro-batches per DP replica (global batch dp x count).
BenchRow bench_evaluate_reuse() {
  const auto start = Clock::now();
  api::EvalContext context;
  const api::Scenario base = api::Scenario::load("scenarios/default.json").with("network", "analytical");
  double fastest = 0;
  constexpr int kEvaluations = 1000;
  for (int i = 0; i < kEvaluations; ++i) {
    const int tp = 1 << (i % 4);
    const int dp = 64 / (tp * 2);
    const int global_batch = dp * (1 + (i / 4) % 32);
    const auto result = api::evaluate(base.with("parallel.tp", tp).with("training.global_batch", global_batch), context);
    fastest = std::max(fastest, result.step.report.tokens_per_s / 64);
  }
  const double wall = seconds_since(start);
  return {"evaluate-reuse-1000",
          "1000 evaluations of the default scenario (tp 1-8, 1-32 micro-batches), analytical, one EvalContext; best " +
              fixed(fastest, 0) + " tokens/s/GPU",
          wall, 0, "< 10 s", wall < 10, peak_rss_gib()};
}

// Issue 20's targets for `ctwin plan`, on every core (2 here), as the CLI runs it (--top 10): the
// analytical phase alone (--flow-top 0) of Llama 3 70B on 1,024 H100, as candidates ranked per
// minute (every candidate bounded, those that can still reach the top replayed; both rates are
// printed); and both phases of Llama 3 405B on 16,384 H100 (the best 32 again on the shared flow
// fabric), with each phase's wall time.
BenchRow bench_plan(const std::string& name, const std::string& scenario, std::size_t flow_top, bool rate,
                    replay::FlowSample flow_sample = replay::FlowSample::kFull) {
  const auto start = Clock::now();
  api::EvalContext context;
  api::PlanOptions options;
  options.flow_top = flow_top;
  options.flow_sample = flow_sample;
  options.top = 10;
  options.jobs = default_jobs();
  const api::PlanResult plan = api::evaluate_plan(api::Scenario::load(scenario), context, options);
  const double wall = seconds_since(start);
  const double ranked_per_minute = static_cast<double>(plan.survivors) / plan.analytical_wall_s * 60;
  const double replayed_per_minute = static_cast<double>(plan.replayed) / plan.analytical_wall_s * 60;
  const auto& best = plan.entries.front();
  std::string what =
      plan.model + " on " + std::to_string(plan.gpus) + " GPUs, " + std::to_string(options.jobs) + " jobs: " +
      std::to_string(plan.enumerated) + " candidates, " + std::to_string(plan.survivors) + " ranked (" +
      std::to_string(plan.replayed) + " replayed) in " + fixed(plan.analytical_wall_s, 1) + " s (bounds " +
      fixed(plan.bound_wall_s, 1) + " s): " + fixed(ranked_per_minute, 0) + " ranked/min, " +
      fixed(replayed_per_minute, 0) + " replayed/min" +
      (flow_top > 0 ? "; best " + std::to_string(flow_top) + " on flow in " + fixed(plan.flow_wall_s, 1) + " s"
                    : std::string()) +
      (flow_sample != replay::FlowSample::kFull ? " (approximate: --flow-sample " + replay::flow_sample_name(flow_sample) + ")"
                                               : std::string()) +
      "; best tp " + std::to_string(best.split.tp) + " pp " + std::to_string(best.split.pp) + " vpp " +
      std::to_string(best.split.vpp) + " cp " + std::to_string(best.split.cp) + " mb " +
      std::to_string(best.split.micro_batch);
  if (rate) return {name, what, wall, 0, ">= 60000 ranked/min", ranked_per_minute >= 60000, peak_rss_gib()};
  return {name, what, wall, 0, "< 60 s", wall < 60, peak_rss_gib()};
}

// 64 points of the default scenario (Llama 3 8B on 64 H100, flow): tp x pp x NIC bandwidth.
BenchRow bench_sweep_64() {
  const auto start = Clock::now();
  api::EvalContext context;
  std::vector<api::GridAxis> axes;
  for (const char* text : {"parallel.tp=1,2,4,8", "parallel.pp=1,2,4,8",
                           "cluster.server.nics.bandwidth=100Gbps,200Gbps,400Gbps,800Gbps"}) {
    axes.push_back(api::parse_grid_axis(text));
  }
  const api::SweepResult result =
      api::evaluate_sweep(api::Scenario::load("scenarios/default.json"), axes, context, {default_jobs(), {}});
  const double wall = seconds_since(start);
  std::size_t ran = 0;
  for (const auto& p : result.points) ran += p.invalid.empty() ? 1 : 0;
  return {"sweep-64",
          "64 points of the default scenario (tp 1-8 x pp 1-8 x NIC 100-800 Gb/s), flow, " +
              std::to_string(default_jobs()) + " jobs; " + std::to_string(ran) + " ran",
          wall, 0, "< 10 s", wall < 10, peak_rss_gib()};
}

// Issue 22's speed target: 1,000 Monte Carlo runs of a 54-day job on 16,384 GPUs on one core.
// Issue 39's target for `ctwin cluster`: 8 jobs of 512 H100 (Llama 3 8B as the default scenario
// splits it, 8 micro-batches per replica) on one 4,096-GPU DGX H100 SuperPOD build, 3 steps each
// on one flow simulation, placed by the four node policies in turn, each alone first.
BenchRow bench_cluster(double target_s) {
  const auto start = Clock::now();
  nlohmann::json document{{"cluster", "dgx-h100-superpod"}, {"nodes", 512}, {"steps", 3}, {"jobs", nlohmann::json::array()}};
  const std::vector<std::string> policies{"packed", "spread", "topology_aware", "fragmented"};
  for (int j = 0; j < 8; ++j) {
    document["jobs"].push_back({{"name", "job" + std::to_string(j)},
                                {"scenario", "default"},
                                {"set", {"gpus=512", "training.global_batch=1024"}},
                                {"placement", policies[static_cast<std::size_t>(j) % policies.size()]}});
  }
  api::ClusterQuery query;
  query.document = document;
  query.source = "<bench cluster>";
  query.dir = ".";
  api::EvalContext context;
  const auto study = api::evaluate_cluster(query, context);
  double worst = 1;
  for (const auto& job : study.jobs) worst = std::max(worst, job.slowdown);
  const double wall = seconds_since(start);
  return {"cluster-8x512-4k",
          "8 jobs of 512 H100 (Llama 3 8B) on 4096 GPUs, 3 steps each on flow (each alone first); worst slowdown " +
              fixed(worst, 3),
          wall, study.events, "< " + fixed(target_s, 0) + " s", wall < target_s, peak_rss_gib()};
}

// The step time is fixed (10 s) so that the row times the Monte Carlo, not `ctwin run`; the
// fabric is built before the clock starts.
BenchRow bench_goodput(double target_s) {
  const auto scenario = replay::load_scenario(resolve_data_path("scenarios/llama3-405b-h100-16k.json"), CTWIN_DATA_DIR);
  const fabric::Fabric built(scenario.cluster, static_cast<int>(scenario.gpus));
  const fabric::FabricSummary summary = fabric::summarize(built);
  const auto model = analysis::load_reliability_model(resolve_data_path("models/reliability/gpu-cluster.json"));
  const auto tiers = analysis::load_storage_tiers(resolve_data_path("models/reliability/storage.json"));
  analysis::GoodputInputs in;
  in.days = 54;
  in.runs = 1000;
  in.interval_s = 1800;
  in.step_time_s = 10;
  in.tokens_per_s = 2048.0 * 8192 / 10;
  in.spares.hot = 64;
  const auto start = Clock::now();
  const analysis::GoodputStudy study = analysis::run_goodput_study(scenario, summary, model, tiers.front(), in);
  const double wall = seconds_since(start);
  const auto failures = static_cast<std::uint64_t>(std::llround(study.result.interruptions.mean * in.runs));
  return {"goodput-16k",
          "1000 runs of 54 days, Llama 3 405B on 16384 H100, 30 min interval, 64 hot spares; " +
              fixed(study.result.interruptions.mean, 1) + " interruptions, ETTR " + fixed(100 * study.result.ettr.mean, 2) +
              " %; events = failures",
          wall, failures, "< " + fixed(target_s, 0) + " s", wall < target_s, peak_rss_gib()};
}

// Issue 40's speed target: the bundled seed-000 chain (1,024 H100, flow) forward and reversed,
// every link's step, one-node linearity run and goodput Monte Carlo.
BenchRow bench_explain(double target_s) {
  const api::ExplainChain chain = api::load_explain_chain("scenarios/explain/seed000-40x.json");
  api::EvalContext context;
  const auto start = Clock::now();
  const api::ExplainResult result = api::evaluate_explain(chain, context, {.reverse = true});
  const double wall = seconds_since(start);
  return {"explain-seed000",
          "scenarios/explain/seed000-40x.json --reverse: " + std::to_string(2 * chain.factors.size() + 1) +
              " links of Llama 3 8B on 1024 H100, flow, each with its one-node run and goodput; " +
              fixed(result.total_gain, 1) + "x in all; events = links",
          wall, static_cast<std::uint64_t>(result.links.size() + result.reversed.size() - 1),
          "< " + fixed(target_s, 0) + " s", wall < target_s, peak_rss_gib()};
}

// The default acceptance plan's expectations on 10,240 GPUs with two threads (the machine the
// target is set for has two cores): collectives up to the whole build, training studies, the
// reliability Monte Carlo, each once.
BenchRow bench_accept(double target_s) {
  const api::AcceptancePlan plan = api::load_acceptance_plan(resolve_data_path("scenarios/acceptance/default.json").string());
  api::Build build;
  build.cluster = "topologies/dgx-h100-superpod.json";
  build.gpus = 10240;
  api::EvalContext context;
  const auto start = Clock::now();
  const api::AcceptanceExpectation e = api::evaluate_acceptance(build, plan, context, {2, {}});
  const double wall = seconds_since(start);
  return {"accept-10k",
          "default acceptance plan (" + std::to_string(plan.tests.size()) + " tests, " + std::to_string(e.rows.size()) +
              " expected points) on 10240 H100 of dgx-h100-superpod, 2 threads; events = points",
          wall, static_cast<std::uint64_t>(e.rows.size()), "< " + fixed(target_s, 0) + " s", wall < target_s, peak_rss_gib()};
}

// Issue 21's speed target: `ctwin size` over 12 build options of 10,240 H100 (kind x leaf
// oversubscription x NIC speed) with the Llama 3 70B scenario at 4 sizes each, on two threads;
// since issue 35 the workloads run on flow (a scalable unit of each stage sampled), where top of
// rack at 4:1 cannot be sampled. `size-readme-10k` is the README's example: rail-optimized leaves
// at 1:1, 2:1 and 4:1 with 400G or 200G NICs.
BenchRow bench_size(bool readme) {
  api::SizeQuery query;
  query.cluster = "topologies/dgx-h100-superpod.json";
  query.gpus = 10240;
  if (readme) {
    query.vary = {api::parse_grid_axis("fabric.oversubscription.leaf=1,2,4", "--vary"),
                  api::parse_grid_axis("server.nics.bandwidth=400Gbps,200Gbps", "--vary")};
    query.parts = "docs/size-example-parts.json";
  } else {
    query.vary = {api::parse_grid_axis("fabric.kind=rail_optimized,top_of_rack", "--vary"),
                  api::parse_grid_axis("fabric.oversubscription.leaf=1,2,4", "--vary"),
                  api::parse_grid_axis("server.nics.bandwidth=400Gbps,800Gbps", "--vary")};
  }
  query.workloads = {"scenarios/llama3-70b-h100-1024.json"};
  query.jobs = 2;
  api::EvalContext context;
  const auto start = Clock::now();
  const api::SizeResult result = api::evaluate_size(query, context);
  const double wall = seconds_since(start);
  std::size_t valid = 0;
  for (const auto& option : result.options) valid += option.invalid.empty() ? 1 : 0;
  const std::string what = readme ? "ctwin size: the README's 6 build options of 10240 H100 (rail-optimized, leaf 1/2/4:1 x 400/200G NICs)"
                                  : "ctwin size: 12 build options of 10240 H100 (kind x leaf 1/2/4:1 x 400/800G NICs)";
  return {readme ? "size-readme-10k" : "size-12x4-10k",
          what + ", Llama 3 70B at 4 sizes each on flow (--flow-sample su), 2 jobs; " + std::to_string(valid) +
              " options built",
          wall, 0, "< 60 s", wall < 60, peak_rss_gib()};
}

// Runs a case `runs` times and keeps the run with the median wall time (the lower middle one
// for an even count), so its row is one real run, not a blend of several. Each run's peak RSS
// is its own where the system lets the peak restart.
BenchRow median_run(const std::function<BenchRow()>& run_case, int runs) {
  std::vector<BenchRow> rows;
  for (int i = 0; i < runs; ++i) {
    const bool own_peak = restart_peak_rss();
    rows.push_back(run_case());
    if (!own_peak) rows.back().what += "; peak RSS of the whole process (restarting it was refused)";
  }
  std::sort(rows.begin(), rows.end(), [](const BenchRow& a, const BenchRow& b) { return a.wall_s < b.wall_s; });
  BenchRow kept = rows[(rows.size() - 1) / 2];
  if (runs > 1) {
    kept.what += "; median of " + std::to_string(runs) + " runs, " + fixed(rows.front().wall_s, 3) + "-" +
                 fixed(rows.back().wall_s, 3) + " s";
  }
  return kept;
}

struct BenchOptions {
  std::string only;
  int repeat = 1;
  std::string format = "table";
  std::string big_cluster = "topologies/hgx-h100-roce.json";
  std::string flow_cluster = "topologies/dgx-h100-superpod.json";
  // dgx-h100-superpod stops at 65,536 GPUs: 64-port QM9700s make at most 64 x 64 x 64 / 4
  // endpoints in three tiers. The 100k case runs on the 128-port Spectrum-4 build instead.
  std::string huge_cluster = "topologies/hgx-h100-roce.json";
};

const Bytes kExchange(16 << 20);

// A case: its name, whether a run without --case includes it (the rest take seconds to minutes
// each and run only when named), and how it runs on the options' topologies. In the table's
// order, which is the rows'.
struct BenchCase {
  const char* name;
  bool by_default;
  std::function<BenchRow(const BenchOptions&)> run;
};

const std::vector<BenchCase>& bench_cases() {
  using O = const BenchOptions&;
  static const std::vector<BenchCase> kCases{
      {"engine", true, [](O) { return bench_engine(); }},
      {"fabric-build", true, [](O o) { return bench_fabric_build(o.big_cluster, 100000); }},
      // A kind added through the topology seam (docs/extending.md), at the size the fat trees are
      // timed at: 32 Slingshot-style groups of 512 GPUs.
      {"fabric-build-dragonfly-16k", true,
       [](O) { return bench_fabric_build("topologies/slingshot-a100-dragonfly.json", 16384, "fabric-build-dragonfly-16k"); }},
      // Sites joined by DCI (docs/fabric.md#sites-joined-by-dci): two 8,192-GPU fat trees.
      {"fabric-build-two-site-16k", true,
       [](O) { return bench_fabric_build("topologies/two-site-h100-roce.json", 16384, "fabric-build-two-site-16k"); }},
      // HPN's dual plane (docs/fabric.md#dual-plane-and-multi-zone-fabrics): two pods, two planes.
      {"fabric-build-dual-plane-16k", true,
       [](O) { return bench_fabric_build("topologies/hpn-dual-plane.json", 16384, "fabric-build-dual-plane-16k"); }},
      // Meta's AI zones: about five and a third zones of 3,072 GPUs under the aggregation tier.
      {"fabric-build-multi-zone-16k", true,
       [](O) { return bench_fabric_build("topologies/meta-ai-zones.json", 16384, "fabric-build-multi-zone-16k"); }},
      {"flow-alltoall-chain", true,
       [](O o) { return bench_flow("flow-alltoall-chain", o.flow_cluster, 16384, 8, kExchange, false); }},
      {"flow-alltoall-chain-pxn", true,
       [](O o) { return bench_flow("flow-alltoall-chain-pxn", o.flow_cluster, 16384, 8, kExchange, true); }},
      {"collective-flow-16k", true,
       [](O o) { return bench_collective("collective-flow-16k", o.flow_cluster, 16384, "flow", 10); }},
      {"collective-analytical-16k", true,
       [](O o) { return bench_collective("collective-analytical-16k", o.flow_cluster, 16384, "analytical", 1); }},
      {"run-flow-16k", true, [](O) { return bench_run("run-flow-16k", "flow", 10); }},
      {"run-analytical-16k", true, [](O) { return bench_run("run-analytical-16k", "analytical", 1); }},
      {"evaluate-reuse-1000", true, [](O) { return bench_evaluate_reuse(); }},
      {"goodput-16k", true, [](O) { return bench_goodput(5); }},
      {"explain-seed000", false, [](O) { return bench_explain(30); }},
      // Their 10,240-GPU builds and plans were most of the default run.
      {"accept-10k", false, [](O) { return bench_accept(60); }},
      {"size-12x4-10k", false, [](O) { return bench_size(false); }},
      {"size-readme-10k", false, [](O) { return bench_size(true); }},
      {"sweep-64", true, [](O) { return bench_sweep_64(); }},
      {"plan-analytical-70b", false,
       [](O) { return bench_plan("plan-analytical-70b", "scenarios/llama3-70b-h100-1024.json", 0, true); }},
      {"plan-405b-16k", false,
       [](O) { return bench_plan("plan-405b-16k", "scenarios/llama3-405b-h100-16k.json", 32, false); }},
      // The approximate flow phase (docs/plan.md): minutes.
      {"plan-405b-16k-replica", false,
       [](O) {
         return bench_plan("plan-405b-16k-replica", "scenarios/llama3-405b-h100-16k.json", 32, false,
                           replay::FlowSample::kReplica);
       }},
      {"cluster-8x512-4k", false, [](O) { return bench_cluster(60); }},
      // A quarter of a minute and 1.5 GiB would dominate the default run.
      {"collective-flow-100k", false,
       [](O o) { return bench_collective("collective-flow-100k", o.huge_cluster, 100000, "flow", 60); }},
      // Adaptive routing's split transfers multiply the flows (docs/fabric.md, "Adaptive routing").
      {"flow-alltoall-chain-adaptive", false,
       [](O o) { return bench_flow("flow-alltoall-chain-adaptive", o.flow_cluster, 16384, 8, kExchange, false, true); }},
      {"run-flow-16k-adaptive", false, [](O) { return bench_run("run-flow-16k-adaptive", "flow", 30, true); }},
      // Issue 38: the DP crosses the DCI site by site.
      {"run-flow-16k-2site", false,
       [](O) { return bench_run("run-flow-16k-2site", "flow", 30, false, "topologies/two-site-h100-roce.json"); }},
  };
  return kCases;
}

void declare_bench_options(CLI::App& command, BenchOptions& o) {
  command.add_option("--case", o.only,
                     "run one case: engine, fabric-build, fabric-build-dragonfly-16k, fabric-build-two-site-16k, "
                     "fabric-build-dual-plane-16k, fabric-build-multi-zone-16k, flow-alltoall-chain, flow-alltoall-chain-pxn, "
                     "collective-flow-16k, collective-analytical-16k, run-flow-16k, run-analytical-16k, evaluate-reuse-1000, "
                     "goodput-16k, sweep-64, or "
                     "flow-alltoall-chain-adaptive, run-flow-16k-adaptive, run-flow-16k-2site, accept-10k, size-12x4-10k, size-readme-10k, collective-flow-100k, plan-analytical-70b, plan-405b-16k, plan-405b-16k-replica, cluster-8x512-4k, explain-seed000 (only when "
                     "named: each 15 s to minutes)");
  command.add_option("--repeat", o.repeat,
                     "runs of each case; the row shown is the run with the median wall time (on a shared "
                     "machine a single run says as much about the neighbours as about ctwin)")
      ->capture_default_str();
  command.add_option("--format", o.format, "table or json")->capture_default_str();
  command.add_option("--build-cluster", o.big_cluster, "topology for the 100,000-GPU build")->capture_default_str();
  command.add_option("--flow-cluster", o.flow_cluster, "topology for the 16,384-GPU cases")->capture_default_str();
  command.add_option("--huge-cluster", o.huge_cluster, "topology for the 100,000-GPU collective")->capture_default_str();
}

// The query: the cases to time, in the table's order, and on which topologies.
struct BenchCall {
  std::vector<const BenchCase*> cases;
  BenchOptions topologies;
  Format format = Format::kTable;
};

BenchCall bench_call(const BenchOptions& o) {
  BenchCall call{{}, o, parse_format(o.format)};
  for (const BenchCase& c : bench_cases()) {
    if (o.only.empty() ? c.by_default : o.only == c.name) call.cases.push_back(&c);
  }
  if (!o.only.empty() && call.cases.empty()) throw InputError("--case", "", "unknown case '" + o.only + "'");
  if (o.repeat < 1) throw InputError("--repeat", "", "must be at least 1");
  return call;
}

std::vector<BenchRow> evaluate_bench_call(const BenchCall& call) {
  std::vector<BenchRow> rows;
  for (const BenchCase* c : call.cases) {
    rows.push_back(median_run([&] { return c->run(call.topologies); }, call.topologies.repeat));
  }
  return rows;
}

void print_bench(const std::vector<BenchRow>& rows, const BenchCall& call, const BenchOptions&) {
  if (call.format == Format::kJson) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& row : rows) {
      out.push_back({{"case", row.name}, {"what", row.what}, {"wall_s", row.wall_s}, {"events", row.events},
                     {"events_per_s", row.events ? static_cast<double>(row.events) / row.wall_s : 0.0},
                     {"target", row.target}, {"met", row.met}, {"peak_rss_GiB", row.peak_rss_gib}});
    }
    std::cout << json_text(out, 2) << '\n';
    return;
  }
  Table table({"case", "wall s", "events", "events/s", "peak RSS GiB", "target", "met", "what"});
  for (const auto& row : rows) {
    table.add_row({row.name, fixed(row.wall_s, 3), row.events ? std::to_string(row.events) : "-",
                   row.events ? fixed(static_cast<double>(row.events) / row.wall_s / 1e6, 2) + "M" : "-",
                   fixed(row.peak_rss_gib, 2), row.target, row.met ? "yes" : "NO", row.what});
  }
  table.print(std::cout, call.format);
}

}  // namespace

Action add_bench_command(CLI::App& app) {
  return add_command(app, CommandParts<BenchOptions, BenchCall, std::vector<BenchRow>>{
                              "bench",
                              "Measure ctwin's own speed: engine events/s, 100k-GPU fabric build, "
                              "flow-model events/s at 16k GPUs, all_reduce sweeps at 16k (and 100k) GPUs",
                              declare_bench_options, bench_call, evaluate_bench_call, print_bench});
}

}  // namespace ctwin::cli
