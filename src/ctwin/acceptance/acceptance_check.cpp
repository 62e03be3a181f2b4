#include "ctwin/acceptance/acceptance_check.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <random>
#include <set>

#include "ctwin/acceptance/acceptance_p2p.hpp"
#include "ctwin/api/gpu_profile.hpp"
#include "ctwin/compute/dtype.hpp"
#include "ctwin/compute/gpu_spec.hpp"
#include "ctwin/core/error.hpp"
#include "ctwin/core/limits.hpp"
#include "ctwin/fabric/router.hpp"

namespace ctwin::api {
namespace {

const AcceptanceTest& test_named(const AcceptancePlan& plan, const std::string& id) {
  for (const auto& test : plan.tests) {
    if (test.id == id) return test;
  }
  throw InputError(plan.source, "", "unknown test '" + id + "'");
}

// A point whose expectation depends on one part: a p2p pair (its route) or a GPU's GEMM.
struct PartPoint {
  std::size_t checked = 0;  // index into AcceptanceCheck::points
  const AcceptanceTest* test = nullptr;
  std::vector<fabric::LinkId> route;  // p2p
  int gpu = -1;                       // gemm
  double log_measured = 0;
};

struct Candidate {
  fabric::PartKind kind;
  int index;
};
bool operator<(const Candidate& a, const Candidate& b) {
  return std::pair(static_cast<int>(a.kind), a.index) < std::pair(static_cast<int>(b.kind), b.index);
}

constexpr int kShareSteps = 20;  // shares 0.05, 0.10, ..., 1.00

std::optional<std::int64_t> read_field(const std::string& instance, const std::string& key) {
  const std::size_t at = instance.find(key + "=");
  if (at == std::string::npos) return std::nullopt;
  try {
    return std::stoll(instance.substr(at + key.size() + 1));
  } catch (...) {
    return std::nullopt;
  }
}

// Per collective test: whether every point at each node count passed.
std::vector<CollectiveNarrowing> narrow_collectives(const AcceptancePlan& plan, const std::vector<CheckedPoint>& points) {
  std::vector<CollectiveNarrowing> out;
  for (const auto& test : plan.tests) {
    if (test.kind != AcceptanceKind::kCollective) continue;
    std::map<std::int64_t, bool> passed;  // node count -> every point passed
    for (const auto& p : points) {
      if (p.test != test.id) continue;
      const auto nodes = read_field(p.instance, "nodes");
      if (!nodes) continue;
      auto [at, fresh] = passed.emplace(*nodes, p.pass);
      if (!fresh) at->second = at->second && p.pass;
    }
    const auto first_failed = std::find_if(passed.begin(), passed.end(), [](const auto& kv) { return !kv.second; });
    if (first_failed == passed.end()) continue;
    CollectiveNarrowing n;
    n.test = test.id;
    n.failed_nodes = first_failed->first;
    if (first_failed != passed.begin()) n.passed_nodes = std::prev(first_failed)->first;
    n.prefix = std::all_of(std::next(first_failed), passed.end(), [](const auto& kv) { return !kv.second; });
    if (n.prefix && n.failed_nodes - n.passed_nodes >= 2) n.next_nodes = (n.passed_nodes + n.failed_nodes) / 2;
    out.push_back(n);
  }
  return out;
}

}  // namespace

namespace {

// A measured rate no part of the build can reach is an edited or misread file, not a finding:
// `accept --measured` passed a GEMM at 1e9 TFLOP/s and a p2p bandwidth of 1e30 GB/s (issue 36).
// The ceilings are physical: a p2p transfer at most its path's slowest raw link, a collective's
// bus bandwidth at most twice the build's fastest link (NVLS reduces in the switch, so its busbw
// may pass the link rate), a GEMM at most the GPU's peak for its type, an MFU at most 1.
void check_below_ceiling(const MeasuredValue& m, const AcceptanceTest& test, const std::vector<fabric::LinkId>& route,
                         const fabric::Fabric& fabric, EvalContext& context) {
  double ceiling = std::numeric_limits<double>::infinity();
  std::string what;
  if (test.kind == AcceptanceKind::kP2p && test.metric == "bandwidth" && !route.empty()) {
    double slowest = std::numeric_limits<double>::infinity();
    for (const auto link : route) slowest = std::min(slowest, fabric.link(link).bandwidth.gigabytes_per_second());
    ceiling = slowest;
    what = "GB/s, the raw rate of the path's slowest link";
  } else if (test.kind == AcceptanceKind::kCollective && test.metric == "busbw") {
    double fastest = 0;
    for (const auto& link : fabric.links()) fastest = std::max(fastest, link.bandwidth.gigabytes_per_second());
    ceiling = 2 * fastest;
    what = "GB/s, twice the build's fastest link";
  } else if (test.kind == AcceptanceKind::kGemm && test.metric == "tflops") {
    const compute::GpuSpec gpu = context.profiles().load(resolve_gpu_path(fabric.spec().server.gpu, "server.gpu"));
    compute::Dtype dtype = compute::Dtype::kBf16;
    double peak = 0;
    if (compute::parse_dtype(test.dtype, dtype)) {
      peak = gpu.peak(dtype).teraflops();
    } else {
      for (const auto& [type, rate] : gpu.peak_dense) peak = std::max(peak, rate.teraflops());
    }
    if (peak > 0) ceiling = peak;
    what = "TFLOP/s, " + gpu.name + "'s peak for " + test.dtype;
  } else if (test.metric == "mfu") {
    ceiling = 1;
    what = "(an MFU is a fraction of the peak)";
  }
  if (m.value > ceiling) {
    char text[96];
    std::snprintf(text, sizeof text, "a measured %s of %g is above %g ", test.metric.c_str(), m.value, ceiling);
    throw InputError(m.source, "value", text + what + ": not a measurement of this build");
  }
}

}  // namespace

AcceptanceCheck check_acceptance(const Build& build, const AcceptancePlan& plan, AcceptanceExpectation expectation,
                                 const MeasuredSet& measured, EvalContext& context) {
  const auto fabric = build_fabric(build, context);
  AcceptanceCheck out;
  out.expectation = std::move(expectation);
  std::map<std::pair<std::string, std::string>, const ExpectedRow*> expected;
  std::map<std::string, const ExpectedRow*> first_row;
  for (const auto& row : out.expectation.rows) {
    expected.emplace(std::pair(row.test, row.instance), &row);
    first_row.emplace(row.test, &row);
  }

  // Collective points at sizes the plan's sweep lacks: predicted at the measured sizes, one
  // sweep per (test, node count).
  std::map<std::pair<std::string, std::int64_t>, std::vector<Bytes>> extra_sizes;
  std::vector<bool> outside(measured.values.size(), false);
  for (std::size_t i = 0; i < measured.values.size(); ++i) {
    const MeasuredValue& m = measured.values[i];
    const AcceptanceTest& test = test_named(plan, m.test);
    if (test.kind != AcceptanceKind::kCollective || expected.count({m.test, m.instance})) continue;
    const auto nodes = read_field(m.instance, "nodes");
    const auto size = read_field(m.instance, "size");
    if (!nodes || !size || *nodes < 1 || *size < 1) throw InputError(m.source, "instance", "'" + m.instance + "' is not nodes=N size=BYTES");
    if (*nodes > out.expectation.nodes) {
      throw InputError(m.source, "instance", "'" + m.instance + "': the build has " + std::to_string(out.expectation.nodes) + " nodes");
    }
    if (Bytes(*size) < test.begin || Bytes(*size) > test.end) {
      outside[i] = true;
      ++out.outside_plan;
      continue;
    }
    auto& sizes = extra_sizes[{m.test, *nodes}];
    if (std::find(sizes.begin(), sizes.end(), Bytes(*size)) == sizes.end()) sizes.emplace_back(*size);
  }
  std::vector<ExpectedRow> extra_rows;
  for (auto& [key, sizes] : extra_sizes) {
    const AcceptanceTest& test = test_named(plan, key.first);
    Build sized = build;
    sized.gpus = std::min<std::int64_t>(key.second * fabric->gpus_per_node(), fabric->gpus());
    collectives::CollectiveQuery query;
    query.op = test.op;
    query.algorithm = test.algorithm;
    query.sizes = sizes;
    const auto result = evaluate_collective(sized, query, context);
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      // The instance names the size measured: nccl-tests' rounding to whole elements per rank
      // is the prediction's business, not the label's.
      ExpectedRow row;
      row.test = test.id;
      row.instance = "nodes=" + std::to_string(key.second) + " size=" + std::to_string(sizes[i].count());
      row.metric = test.metric;
      row.expected = result.rows[i].busbw_GBps;
      row.threshold = pass_threshold(row.expected, test.metric, test.tolerance);
      extra_rows.push_back(row);
    }
  }
  for (const auto& row : extra_rows) expected.emplace(std::pair(row.test, row.instance), &row);

  std::vector<PartPoint> part_points;
  for (std::size_t i = 0; i < measured.values.size(); ++i) {
    if (outside[i]) continue;
    const MeasuredValue& m = measured.values[i];
    const AcceptanceTest& test = test_named(plan, m.test);
    CheckedPoint point;
    point.test = m.test;
    point.instance = m.instance;
    point.metric = test.metric;
    point.measured = m.value;
    point.source = m.source;
    PartPoint part;
    part.test = &test;
    if (test.kind == AcceptanceKind::kP2p) {
      const auto pair = parse_pair_label(m.instance);
      if (!pair || pair->src < 0 || pair->dst < 0 || pair->src >= fabric->gpus() || pair->dst >= fabric->gpus()) {
        throw InputError(m.source, "instance", "'" + m.instance + "' is not SRC->DST, two GPUs of the build");
      }
      if (path_class(*fabric, *pair) != test.path) {
        throw InputError(m.source, "instance", m.instance + " is a " + to_string(path_class(*fabric, *pair)) + " pair, but " +
                                                   test.id + " tests " + to_string(test.path));
      }
      part.route = fabric::route(*fabric, pair->src, pair->dst);
      point.expected = p2p_metric(test, p2p_time(*fabric, part.route, test.size));
      point.threshold = pass_threshold(point.expected, test.metric, test.tolerance);
    } else if (test.kind == AcceptanceKind::kGemm) {
      const auto gpu = read_field(m.instance, "gpu");
      if (!gpu || *gpu < 0 || *gpu >= fabric->gpus()) throw InputError(m.source, "instance", "'" + m.instance + "' is not gpu=RANK of the build");
      part.gpu = static_cast<int>(*gpu);
      point.expected = first_row.at(test.id)->expected;
      point.threshold = first_row.at(test.id)->threshold;
    } else {
      const auto found = expected.find({m.test, m.instance});
      if (found == expected.end()) {
        throw InputError(m.source, "instance", "'" + m.instance + "': " + m.test + " expects none such (e.g. '" +
                                                   first_row.at(m.test)->instance + "')");
      }
      point.expected = found->second->expected;
      point.threshold = found->second->threshold;
    }
    check_below_ceiling(m, test, part.route, *fabric, context);
    point.pass = higher_is_better(test.metric) ? point.measured >= point.threshold : point.measured <= point.threshold;
    out.failed += point.pass ? 0 : 1;
    if (test.kind == AcceptanceKind::kP2p || test.kind == AcceptanceKind::kGemm) {
      if (!(point.measured > 0)) throw InputError(m.source, "value", "a measured " + test.metric + " of 0 cannot be compared");
      part.checked = out.points.size();
      part.log_measured = std::log(point.measured);
      part_points.push_back(std::move(part));
    }
    out.points.push_back(std::move(point));
  }

  out.narrowed = narrow_collectives(plan, out.points);
  std::vector<MeasuredValue> not_compared;
  for (std::size_t i = 0; i < measured.values.size(); ++i) {
    if (outside[i]) not_compared.push_back(measured.values[i]);
  }
  out.coverage = test_coverage(plan, out.expectation, *fabric, out.points, not_compared);
  for (const auto& c : out.coverage) out.tests_measured += c.status == CoverageStatus::kMeasured ? 1 : 0;
  out.verdict = out.failed > 0 ? Verdict::kNotAccepted
              : out.tests_measured == static_cast<int>(out.coverage.size()) ? Verdict::kAccepted
                                                                             : Verdict::kIncomplete;

  // Suspects: the parts a failed point crosses.
  std::set<Candidate> candidates;
  for (const auto& p : part_points) {
    if (out.points[p.checked].pass) continue;
    if (p.gpu >= 0) {
      candidates.insert({fabric::PartKind::kGpu, p.gpu});
      continue;
    }
    for (const fabric::LinkId link : p.route) {
      const fabric::Link& l = fabric->link(link);
      if (l.kind == fabric::LinkKind::kAccess) {
        // A NIC and its own cable are one suspect: nothing measured tells them apart.
        const int slot = static_cast<int>(((link & ~fabric::LinkId{1}) - fabric->access_link(0, 0)) / 2);
        const int rails = fabric->server().nics();
        const int node = slot / rails;
        const int local_nic = slot % rails;
        candidates.insert({fabric::PartKind::kNic, node * fabric->gpus_per_node() + fabric->server().gpu_of_nic(local_nic)});
      } else if (fabric::is_switch_cable(l.kind)) {
        candidates.insert({fabric::PartKind::kLink, static_cast<int>(link & ~fabric::LinkId{1})});
        if (const auto leaf = fabric->topology().uplink_part_of(*fabric, link)) {
          candidates.insert({fabric::PartKind::kLeafUplinks, *leaf});
        }
      }
    }
  }
  if (candidates.empty()) return out;

  // Which evidence points each suspect touches.
  std::vector<Candidate> list(candidates.begin(), candidates.end());
  std::vector<std::vector<fabric::LinkId>> links_of(list.size());
  std::map<fabric::LinkId, std::vector<std::size_t>> link_candidates;
  std::map<int, std::vector<std::size_t>> gpu_candidates;
  for (std::size_t c = 0; c < list.size(); ++c) {
    links_of[c] = fabric::part_links(*fabric, list[c].kind, list[c].index);
    for (const auto link : links_of[c]) link_candidates[link].push_back(c);
    if (list[c].kind == fabric::PartKind::kGpu) gpu_candidates[list[c].index].push_back(c);
  }
  std::vector<std::vector<std::size_t>> touched(list.size());
  std::vector<std::size_t> evidence;
  for (std::size_t i = 0; i < part_points.size(); ++i) {
    std::set<std::size_t> hit;
    if (part_points[i].gpu >= 0) {
      if (const auto found = gpu_candidates.find(part_points[i].gpu); found != gpu_candidates.end()) hit.insert(found->second.begin(), found->second.end());
    } else {
      for (const auto link : part_points[i].route) {
        if (const auto found = link_candidates.find(link); found != link_candidates.end()) hit.insert(found->second.begin(), found->second.end());
      }
    }
    if (hit.empty() && out.points[part_points[i].checked].pass) continue;
    for (const auto c : hit) touched[c].push_back(evidence.size());
    evidence.push_back(i);
  }
  out.evidence_points = static_cast<int>(evidence.size());

  // Prediction of an evidence point with per-link and per-GPU shares.
  std::vector<double> link_share(fabric->links().size(), 1.0);
  std::map<int, double> gpu_share;
  const auto predict_log = [&](std::size_t e, std::size_t candidate, double share) {
    const PartPoint& p = part_points[evidence[e]];
    const double base = out.points[p.checked].expected;
    if (p.gpu >= 0) {
      double s = gpu_share.count(p.gpu) ? gpu_share[p.gpu] : 1.0;
      if (candidate < list.size() && list[candidate].kind == fabric::PartKind::kGpu && list[candidate].index == p.gpu) s *= share;
      return std::log(base * s);
    }
    std::vector<double> factors;  // only the route's links matter: p2p_time reads factors[id]
    double latency_s = 0;
    double slowest = std::numeric_limits<double>::infinity();
    for (const auto link : p.route) {
      double f = link_share[link];
      if (candidate < list.size() && std::binary_search(links_of[candidate].begin(), links_of[candidate].end(), link)) f *= share;
      const fabric::Link& l = fabric->link(link);
      latency_s += l.latency.seconds();
      slowest = std::min(slowest, l.achieved().bytes_per_second() * f);
    }
    const double seconds = latency_s + static_cast<double>(p.test->size.count()) / slowest;
    return std::log(p2p_metric(*p.test, SimTime::from_seconds(seconds)));
  };
  for (auto& links : links_of) std::sort(links.begin(), links.end());

  std::vector<double> residual(evidence.size());
  const auto refresh = [&] {
    for (std::size_t e = 0; e < evidence.size(); ++e) {
      const double r = part_points[evidence[e]].log_measured - predict_log(e, list.size(), 1.0);
      residual[e] = r * r;
    }
  };
  refresh();
  const auto total = [&] {
    double sum = 0;
    for (const double r : residual) sum += r;
    return sum;
  };
  // Best share and score of one suspect, given the parts already in the explanation.
  const auto fit = [&](std::size_t c, double healthy) {
    Suspect s;
    s.part = fabric::part_name(*fabric, list[c].kind, list[c].index);
    s.score = healthy;
    for (int step = 1; step <= kShareSteps; ++step) {
      const double share = static_cast<double>(step) / kShareSteps;
      double score = healthy;
      for (const auto e : touched[c]) {
        const double r = part_points[evidence[e]].log_measured - predict_log(e, c, share);
        score += r * r - residual[e];
      }
      if (score < s.score - 1e-12) {
        s.score = score;
        s.share = share;
      }
    }
    s.score = std::max(0.0, s.score);
    s.explained = healthy > 0 ? 1 - s.score / healthy : 0;
    s.term = fabric::term(*fabric, {list[c].kind, list[c].index, s.share});
    for (const auto e : touched[c]) s.failures_crossed += out.points[part_points[evidence[e]].checked].pass ? 0 : 1;
    return s;
  };
  const double healthy = total();
  std::vector<std::pair<Suspect, std::size_t>> ranked;
  for (std::size_t c = 0; c < list.size(); ++c) ranked.emplace_back(fit(c, healthy), c);
  // Ties (parts nothing measured tells apart) keep the order of part kind and index.
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first.score < b.first.score; });
  for (std::size_t i = 0; i < ranked.size() && i < 10; ++i) out.suspects.push_back(ranked[i].first);

  // The explanation: add parts while each removes a fifth of what is left.
  std::set<std::size_t> used;
  for (int round = 0; round < 5; ++round) {
    const double left = total();
    if (left <= 0) break;
    std::optional<std::pair<Suspect, std::size_t>> best;
    for (std::size_t c = 0; c < list.size(); ++c) {
      if (used.count(c)) continue;
      Suspect s = fit(c, left);
      if (!best || s.score < best->first.score) best = std::pair(s, c);
    }
    if (!best || best->first.score > 0.8 * left) break;
    const std::size_t c = best->second;
    used.insert(c);
    if (list[c].kind == fabric::PartKind::kGpu) {
      gpu_share[list[c].index] = (gpu_share.count(list[c].index) ? gpu_share[list[c].index] : 1.0) * best->first.share;
    }
    for (const auto link : links_of[c]) link_share[link] *= best->first.share;
    refresh();
    best->first.explained = healthy > 0 ? 1 - total() / healthy : 0;
    out.explanation.push_back(best->first);
  }
  return out;
}

MeasuredSet synthesize_measured(const Build& build, const AcceptancePlan& plan, const AcceptanceExpectation& expectation,
                                const std::vector<std::string>& degraded, double noise, std::uint64_t seed,
                                EvalContext& context) {
  const auto healthy = build_fabric(build, context);
  fabric::Fabric fabric(load_build(build), limits::gpu_count(build.gpus));
  std::map<int, double> gpu_speed;
  std::vector<std::string> nic_terms;
  for (const auto& term : degraded) {
    const fabric::Degradation d = fabric::parse_degradation(term, "degraded", fabric);
    fabric::apply_degradation(fabric, d);
    if (d.kind == fabric::PartKind::kGpu) gpu_speed[d.index] = std::min(gpu_speed.count(d.index) ? gpu_speed[d.index] : 1.0, d.factor);
    if (d.kind == fabric::PartKind::kNic) nic_terms.push_back(term);
  }
  std::mt19937_64 random(seed);
  std::uniform_real_distribution<double> jitter(-noise, noise);
  MeasuredSet out;
  const auto add = [&](const std::string& test, std::string instance, double value) {
    out.values.push_back({test, std::move(instance), value * (1 + jitter(random)), "synthetic"});
  };
  for (const auto& test : plan.tests) {
    switch (test.kind) {
      case AcceptanceKind::kP2p:
        for (const auto& pair : class_pairs(fabric, test.path)) {
          add(test.id, pair_label(pair), p2p_metric(test, p2p_time(fabric, pair, test.size)));
        }
        break;
      case AcceptanceKind::kGemm: {
        double value = 0;
        for (const auto& row : expectation.rows) {
          if (row.test == test.id) value = row.expected;
        }
        for (int gpu = 0; gpu < fabric.gpus(); ++gpu) {
          add(test.id, "gpu=" + std::to_string(gpu), value * (gpu_speed.count(gpu) ? gpu_speed[gpu] : 1.0));
        }
        break;
      }
      case AcceptanceKind::kCollective: {
        for (const auto nodes : test.nodes) {
          const std::int64_t n = test_nodes(nodes, expectation.nodes);
          Build sized = build;
          sized.gpus = n == expectation.nodes ? expectation.gpus : n * fabric.gpus_per_node();
          std::vector<std::string> terms;
          if (sized.gpus == expectation.gpus) {
            terms = degraded;
          } else {
            for (const auto& term : nic_terms) {
              if (fabric::parse_degradation(term, "degraded", *healthy).index < sized.gpus) terms.push_back(term);
            }
          }
          collectives::CollectiveQuery query;
          query.op = test.op;
          query.algorithm = test.algorithm;
          query.sizes = collectives::size_sweep(test.begin, test.end, test.factor);
          const auto result = evaluate_degraded_collective(sized, terms, "degraded", query, context);
          for (const auto& r : result.rows) {
            add(test.id, "nodes=" + std::to_string(n) + " size=" + std::to_string(r.size.count()), r.busbw_GBps);
          }
        }
        break;
      }
      case AcceptanceKind::kTraining:
      case AcceptanceKind::kReliability:
        for (const auto& row : expectation.rows) {
          if (row.test == test.id) add(test.id, row.instance, row.expected);
        }
        break;
    }
  }
  return out;
}

}  // namespace ctwin::api
