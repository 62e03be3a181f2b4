#include "ctwin/acceptance/acceptance.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <mutex>

#include "ctwin/analysis/goodput_study.hpp"
#include "ctwin/acceptance/acceptance_goodput.hpp"
#include "ctwin/acceptance/acceptance_p2p.hpp"
#include "ctwin/api/compute_eval.hpp"
#include "ctwin/api/data_dir.hpp"
#include "ctwin/api/error_band.hpp"
#include "ctwin/api/gpu_profile.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/core/parallel_for.hpp"
#include "ctwin/fabric/summary.hpp"

namespace ctwin::api {
namespace {

std::string format(const char* pattern, double value) {
  char text[64];
  std::snprintf(text, sizeof text, pattern, value);
  return text;
}

ExpectedRow row_of(const AcceptanceTest& test, std::string instance, double expected) {
  ExpectedRow row;
  row.test = test.id;
  row.kind = test.kind;
  row.instance = std::move(instance);
  row.metric = test.metric;
  row.expected = expected;
  row.threshold = pass_threshold(expected, test.metric, test.tolerance);
  row.tolerance = test.tolerance.text;
  return row;
}

// A training study: the scenario on the build's cluster at every node count of the test.
struct StudyKey {
  std::string scenario;
  std::vector<std::string> set;
  std::vector<std::int64_t> gpus;
  auto operator<=>(const StudyKey&) const = default;
};

}  // namespace

std::int64_t test_nodes(std::int64_t nodes, std::int64_t build_nodes) { return nodes == 0 ? build_nodes : nodes; }

AcceptanceExpectation evaluate_acceptance(const Build& build, const AcceptancePlan& plan, EvalContext& context,
                                          const AcceptanceOptions& options) {
  const auto fabric = build_fabric(build, context);
  AcceptanceExpectation out;
  out.plan = plan.name;
  out.cluster = fabric->spec().name;
  out.gpus = fabric->gpus();
  out.nodes = fabric->nodes();
  const std::int64_t per_node = fabric->gpus_per_node();
  const std::string cluster_path = resolve_named(build.cluster, DataKind::kTopology).string();

  const auto gpus_of = [&](std::size_t t, std::int64_t nodes) {
    const std::int64_t n = test_nodes(nodes, out.nodes);
    if (n > out.nodes) {
      throw InputError(plan.source, "/tests/" + std::to_string(t) + "/nodes",
                       std::to_string(n) + " nodes, but the build has " + std::to_string(out.nodes));
    }
    return n == out.nodes ? out.gpus : n * per_node;
  };

  // The points that take time, each computed once, in parallel: collectives per node count,
  // training studies per (scenario, sizes), reliability per (scenario, days, spares).
  struct Job {
    std::size_t test = 0;
    std::int64_t gpus = 0;
  };
  std::vector<Job> collective_jobs;
  std::map<StudyKey, std::size_t> study_index;
  std::vector<StudyKey> studies;
  std::map<GoodputKey, std::size_t> goodput_index;
  std::vector<GoodputKey> goodputs;
  for (std::size_t t = 0; t < plan.tests.size(); ++t) {
    const AcceptanceTest& test = plan.tests[t];
    if (test.kind == AcceptanceKind::kCollective) {
      for (const auto nodes : test.nodes) collective_jobs.push_back({t, gpus_of(t, nodes)});
    } else if (test.kind == AcceptanceKind::kTraining) {
      StudyKey key{test.scenario, test.set, {}};
      for (const auto nodes : test.nodes) key.gpus.push_back(gpus_of(t, nodes));
      std::sort(key.gpus.begin(), key.gpus.end());
      key.gpus.erase(std::unique(key.gpus.begin(), key.gpus.end()), key.gpus.end());
      if (study_index.emplace(key, studies.size()).second) studies.push_back(key);
    } else if (test.kind == AcceptanceKind::kReliability) {
      const GoodputKey key{test.scenario, test.days, test.spares};
      if (goodput_index.emplace(key, goodputs.size()).second) goodputs.push_back(key);
    }
  }

  std::vector<collectives::CollectiveResult> collective_results(collective_jobs.size());
  std::vector<analysis::ScalingStudy> study_results(studies.size());
  std::vector<AcceptanceGoodput> goodput_results(goodputs.size());
  const std::size_t total = collective_jobs.size() + studies.size() + goodputs.size();
  std::mutex progress_mutex;
  std::size_t done = 0;
  parallel_for(total, options.jobs, [&](std::size_t i) {
    if (i < collective_jobs.size()) {
      const Job& job = collective_jobs[i];
      const AcceptanceTest& test = plan.tests[job.test];
      Build sized = build;
      sized.gpus = job.gpus;
      collectives::CollectiveQuery query;
      query.op = test.op;
      query.algorithm = test.algorithm;
      query.sizes = collectives::size_sweep(test.begin, test.end, test.factor);
      collective_results[i] = evaluate_collective(sized, query, context);
    } else if (i < collective_jobs.size() + studies.size()) {
      const StudyKey& key = studies[i - collective_jobs.size()];
      const Scenario scenario = Scenario::load(key.scenario).with("cluster", cluster_path).with_assignments(key.set);
      ScalingOptions scaling;
      scaling.gpus = key.gpus;
      scaling.batch = analysis::BatchPolicy::kPerReplica;  // the seeds' tests grow the batch with the nodes
      study_results[i - collective_jobs.size()] = evaluate_scaling(scenario, context, scaling);
    } else {
      const std::size_t g = i - collective_jobs.size() - studies.size();
      goodput_results[g] = evaluate_acceptance_goodput(goodputs[g], cluster_path, out.gpus, context);
    }
    if (options.progress) {
      const std::lock_guard lock(progress_mutex);
      options.progress(++done, total);
    }
  });

  // Read once, and only when the plan trains: the bands' file is not needed by the other kinds.
  std::optional<analysis::ErrorBands> bands;
  const auto training_band = [&bands](const analysis::ScalingStudy& study) {
    if (!bands) bands = load_bundled_error_bands();
    return analysis::band_for(*bands, study.error_band);
  };
  std::size_t next_collective = 0;
  for (std::size_t t = 0; t < plan.tests.size(); ++t) {
    const AcceptanceTest& test = plan.tests[t];
    const std::string pointer = "/tests/" + std::to_string(t);
    switch (test.kind) {
      case AcceptanceKind::kP2p: {
        const auto pairs = class_pairs(*fabric, test.path);
        if (pairs.empty()) {
          throw InputError(plan.source, pointer + "/path",
                           std::string("the build has no ") + to_string(test.path) + " pair of GPUs");
        }
        ExpectedRow row = row_of(test, pair_label(pairs.front()), p2p_metric(test, p2p_time(*fabric, pairs.front(), test.size)));
        row.size_bytes = test.size.count();
        row.detail = std::string(to_string(test.path)) + ", " + std::to_string(pairs.size()) + " pairs in a full run";
        out.rows.push_back(std::move(row));
        break;
      }
      case AcceptanceKind::kCollective:
        for (std::size_t n = 0; n < test.nodes.size(); ++n) {
          const collectives::CollectiveResult& result = collective_results[next_collective++];
          for (const auto& r : result.rows) {
            const std::int64_t nodes = (result.gpus + per_node - 1) / per_node;
            ExpectedRow row = row_of(test, "nodes=" + std::to_string(nodes) + " size=" + std::to_string(r.size.count()), r.busbw_GBps);
            row.nodes = nodes;
            row.size_bytes = r.size.count();
            row.detail = std::string(collectives::name(test.op)) + " " + std::string(collectives::name(r.algorithm)) + "/" +
                         std::string(collectives::name(r.protocol)) + " on " + std::to_string(result.gpus) + " GPUs";
            out.rows.push_back(std::move(row));
          }
        }
        break;
      case AcceptanceKind::kGemm: {
        const compute::GpuSpec gpu = context.profiles().load(resolve_gpu_path(fabric->spec().server.gpu, "server.gpu"));
        compute::Dtype dtype = compute::Dtype::kBf16;
        (void)compute::parse_dtype(test.dtype, dtype);
        const GemmPrediction prediction = evaluate_gemm(gpu, {{test.m, test.n, test.k, dtype}});
        ExpectedRow row = row_of(test, "gpu=each", prediction.rows.front().estimate.rate().per_second() * 1e-12);
        row.detail = std::to_string(test.m) + "x" + std::to_string(test.n) + "x" + std::to_string(test.k) + " " + test.dtype +
                     " on " + gpu.name + ", every GPU";
        out.rows.push_back(std::move(row));
        break;
      }
      case AcceptanceKind::kTraining: {
        StudyKey key{test.scenario, test.set, {}};
        for (const auto nodes : test.nodes) key.gpus.push_back(gpus_of(t, nodes));
        std::sort(key.gpus.begin(), key.gpus.end());
        key.gpus.erase(std::unique(key.gpus.begin(), key.gpus.end()), key.gpus.end());
        const analysis::ScalingStudy& study = study_results[study_index.at(key)];
        for (const auto& point : study.points) {
          const std::int64_t nodes = (point.gpus + per_node - 1) / per_node;
          if (!point.invalid.empty()) {
            throw InputError(plan.source, pointer + "/nodes",
                             std::to_string(nodes) + " nodes cannot run the scenario's split: " + point.invalid);
          }
          const replay::StepReport& r = point.report;
          double value = 0;
          if (test.metric == "throughput") value = r.tokens_per_s / static_cast<double>(point.gpus);
          if (test.metric == "linearity") value = point.linearity;
          if (test.metric == "mfu") value = r.mfu;
          if (test.metric == "flops_per_watt") value = r.model_tflops_per_gpu * 1e3 / test.gpu_power_w;
          ExpectedRow row = row_of(test, "nodes=" + std::to_string(nodes), value);
          row.nodes = nodes;
          if (test.metric != "linearity") row.band = analysis::throughput_interval(value, *training_band(study).from);
          row.detail = study.model + ", global batch " + std::to_string(point.global_batch) + ", step " +
                       format("%.4g s", r.step_time_s);
          out.rows.push_back(std::move(row));
        }
        break;
      }
      case AcceptanceKind::kReliability: {
        const AcceptanceGoodput& g = goodput_results[goodput_index.at(GoodputKey{test.scenario, test.days, test.spares})];
        const double value = test.metric == "mtbf" ? g.mtbf_h : test.metric == "mttr" ? g.mttr_h : g.availability;
        ExpectedRow row = row_of(test, "build", value);
        row.nodes = out.nodes;
        row.detail = g.detail;
        out.rows.push_back(std::move(row));
        break;
      }
    }
  }
  return out;
}

}  // namespace ctwin::api
