#include "ctwin/analysis/goodput_simulation.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <set>
#include <utility>

#include "ctwin/core/error.hpp"

namespace ctwin::analysis {
namespace {

std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

/// xoshiro256** (Blackman and Vigna, 2018): small, fast, and the same numbers everywhere.
class Generator {
 public:
  Generator(std::uint64_t seed, std::uint64_t stream) {
    std::uint64_t mix = seed ^ (stream * 0xD1B54A32D192ED03ULL);
    for (auto& word : s_) word = splitmix64(mix);
  }
  std::uint64_t next() {
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }
  /// Uniform on [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  /// Inverse CDF of the exponential distribution.
  double exponential(double mean) { return -mean * std::log1p(-uniform()); }

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::uint64_t s_[4] = {};
};

// A piece of the run during which throttled GPUs cost `loss` = 1 − 1/effect of the training pace.
// `slowdown`: the piece's slowest event is a part down (SlowdownCause), not a throttled GPU.
struct SlowPiece {
  double start = 0;
  double end = 0;
  double loss = 0;
  bool slowdown = false;
};

// A piece's training-time losses, by what caused them.
struct SlowLoss {
  double straggler = 0;
  double slowdown = 0;
};

// Parts down that only slow the job, each for its repair, from a stream of their own (the failure
// and straggler draws stay those of a build without them).
void draw_slowdowns(const GoodputConfig& c, int index, long long& events, std::vector<SlowPiece>& raw) {
  Generator rng(c.seed ^ 0x504C414E45444F57ULL, static_cast<std::uint64_t>(index));
  for (const SlowdownCause& cause : c.slowdowns) {
    if (!(cause.rate_per_s > 0)) continue;
    const double loss = cause.effect > 1 ? 1 - 1 / cause.effect : 0;
    for (double t = rng.exponential(1 / cause.rate_per_s); t < c.duration_s; t += rng.exponential(1 / cause.rate_per_s)) {
      ++events;
      raw.push_back({t, std::min(c.duration_s, t + rng.exponential(cause.repair_mean_s)), loss, true});
    }
  }
}

// The run's straggler and slowdown events as disjoint pieces, the slowest event counting where they overlap.
std::vector<SlowPiece> draw_stragglers(const GoodputConfig& c, int index, long long& events, long long& slowdowns) {
  const StragglerModel& m = c.stragglers;
  std::vector<SlowPiece> raw;
  if (!c.slowdowns.empty()) draw_slowdowns(c, index, slowdowns, raw);
  if (m.rate_per_s > 0) {
    // Its own stream: the failure draws stay those of a run without stragglers.
    Generator rng(c.seed ^ 0x5354524147474C45ULL, static_cast<std::uint64_t>(index));
    for (double t = rng.exponential(1 / m.rate_per_s); t < c.duration_s; t += rng.exponential(1 / m.rate_per_s)) {
      const auto gpu = std::min(m.gpus - 1, static_cast<long long>(rng.uniform() * static_cast<double>(m.gpus)));
      const double effect = m.effect(gpu);
      ++events;
      raw.push_back({t, std::min(c.duration_s, t + m.duration_s), effect > 1 ? 1 - 1 / effect : 0, false});
    }
  }
  if (raw.empty()) return raw;
  // Sweep over starts and ends (an end before a start at the same time), the active losses in a multiset.
  std::vector<std::pair<double, int>> edges;  // time, +1 + index for a start, -1 - index for an end
  for (std::size_t i = 0; i < raw.size(); ++i) {
    edges.emplace_back(raw[i].start, static_cast<int>(i) + 1);
    edges.emplace_back(raw[i].end, -static_cast<int>(i) - 1);
  }
  std::sort(edges.begin(), edges.end());
  std::multiset<std::pair<double, bool>> active;  // loss, slowdown
  std::vector<SlowPiece> pieces;
  double from = 0;
  for (const auto& [t, e] : edges) {
    if (!active.empty() && t > from && active.rbegin()->first > 0) {
      pieces.push_back({from, t, active.rbegin()->first, active.rbegin()->second});
    }
    from = t;
    const SlowPiece& event = raw[static_cast<std::size_t>(e > 0 ? e - 1 : -e - 1)];
    if (e > 0) {
      active.emplace(event.loss, event.slowdown);
    } else {
      active.erase(active.find({event.loss, event.slowdown}));
    }
  }
  return pieces;
}

struct RunTally {
  TimeAccount time;
  long long straggler_events = 0;
  long long slowdown_events = 0;
  double goodput_work_s = 0;
  std::vector<long long> by_cause;
  long long interruptions = 0;
  bool hot_dry = false;
  bool pool_dry = false;
};

class Run {
 public:
  Run(const GoodputConfig& c, const std::vector<double>& cumulative, double total_rate, int index)
      : c_(c), cumulative_(cumulative), total_rate_(total_rate), rng_(c.seed, static_cast<std::uint64_t>(index)) {
    tally_.by_cause.assign(c.causes.size(), 0);
    slow_ = draw_stragglers(c, index, tally_.straggler_events, tally_.slowdown_events);
    hot_ = c.spares.hot;
    cold_ = c.spares.cold;
  }

  RunTally play() {
    const double end = c_.duration_s;
    double next_failure = draw_failure(0);
    double run_start = 0;
    while (true) {
      if (next_failure >= end) {
        train(run_start, end - run_start, false);
        break;
      }
      train(run_start, next_failure - run_start, true);
      double failure = next_failure;
      bool finished = false;
      // A recovery, begun again by each failure that strikes before the job runs.
      nodes_ready_at_ = failure;
      pending_swap_ = 0;
      while (true) {
        next_failure = draw_failure(failure);
        handle_failure(failure);
        const double detected = failure + c_.detection_s;
        const double waiting = std::max(0.0, nodes_ready_at_ - detected);
        const double phases[4] = {c_.detection_s, waiting, pending_swap_, c_.launch_s + c_.load_s};
        double* buckets[4] = {&tally_.time.detection_s, &tally_.time.waiting_s, &tally_.time.switchover_s,
                              &tally_.time.restart_s};
        const double stop = std::min(next_failure, end);
        double t = failure;
        for (int p = 0; p < 4; ++p) {
          const double until = std::min(t + phases[p], stop);
          *buckets[p] += until - t;
          t = until;
        }
        const double recovered = failure + phases[0] + phases[1] + phases[2] + phases[3];
        if (recovered < next_failure && recovered < end) {
          return_repairs(recovered);  // nodes back by now can refill dropped replicas
          regrow();
          run_start = recovered;
          break;
        }
        if (next_failure >= end) {
          finished = true;  // the run ends during the recovery
          break;
        }
        failure = next_failure;
      }
      if (finished) break;
    }
    return tally_;
  }

 private:
  double draw_failure(double now) {
    return total_rate_ > 0 ? now + rng_.exponential(1 / total_rate_) : std::numeric_limits<double>::infinity();
  }

  std::size_t pick_cause() {
    const double u = rng_.uniform() * total_rate_;
    const auto it = std::upper_bound(cumulative_.begin(), cumulative_.end(), u);
    return std::min(static_cast<std::size_t>(it - cumulative_.begin()), cumulative_.size() - 1);
  }

  /// A running segment of `elapsed` seconds from a (re)start: cycles of τ training and δ
  /// checkpointing. Ended by a failure, it keeps only the work behind durable checkpoints.
  void train(double start, double elapsed, bool failed) {
    if (elapsed <= 0) return;
    const double tau = c_.interval_s;
    const double cycle = tau + c_.blocking_s;
    const double full = std::floor(elapsed / cycle);
    const double rest = elapsed - full * cycle;
    const double trained = full * tau + std::min(rest, tau);
    tally_.time.checkpoint_s += full * c_.blocking_s + std::max(0.0, rest - tau);
    double kept = trained;
    double kept_until = start + elapsed;  // the kept training lies in [start, kept_until)
    if (failed) {
      const double durable = elapsed >= c_.persist_s ? std::min(full, std::floor((elapsed - c_.persist_s) / cycle)) : 0;
      kept = durable * tau;
      kept_until = start + durable * cycle;
      tally_.time.lost_work_s += trained - kept;
    }
    if (!slow_.empty()) {
      const SlowLoss slowed = slowed_training(start, kept_until);
      kept -= slowed.straggler + slowed.slowdown;
      tally_.time.straggler_s += slowed.straggler;
      tally_.time.slowdown_s += slowed.slowdown;
    }
    tally_.time.useful_s += kept;
    const long long running = c_.layout.replicas - lost_replicas_;
    const double share = lost_replicas_ == 0 || !c_.replica_share
                             ? static_cast<double>(running) / static_cast<double>(c_.layout.replicas)
                             : c_.replica_share(running);
    tally_.goodput_work_s += kept * share;
    tally_.time.shrunk_s += kept * (1 - share);
  }

  /// Training time lost to throttled GPUs in the training (not checkpoint) time of [start, until),
  /// the segment's cycles of τ training and δ checkpoint starting at `start`.
  SlowLoss slowed_training(double start, double until) {
    const double tau = c_.interval_s;
    const double cycle = tau + c_.blocking_s;
    const auto training_before = [&](double t) {  // training time in [start, t)
      const double since = t - start;
      const double cycles = std::floor(since / cycle);
      return cycles * tau + std::min(since - cycles * cycle, tau);
    };
    SlowLoss lost;
    // Segments come in time order: pieces that ended before this one never matter again.
    while (slow_at_ < slow_.size() && slow_[slow_at_].end <= start) ++slow_at_;
    for (std::size_t i = slow_at_; i < slow_.size(); ++i) {
      const SlowPiece& p = slow_[i];
      if (p.start >= until) break;
      const double loss = p.loss * (training_before(std::min(p.end, until)) - training_before(std::max(p.start, start)));
      (p.slowdown ? lost.slowdown : lost.straggler) += loss;
    }
    return lost;
  }

  void return_repairs(double now) {
    while (!repairs_.empty() && repairs_.front().first <= now) {
      hot_ += repairs_.front().second;
      std::pop_heap(repairs_.begin(), repairs_.end(), std::greater<>());
      repairs_.pop_back();
    }
  }

  void handle_failure(double now) {
    const std::size_t cause = pick_cause();
    ++tally_.by_cause[cause];
    ++tally_.interruptions;
    return_repairs(now);
    const FailureCause& f = c_.causes[cause];
    long long need = f.nodes_taken;
    if (need == 0) return;
    repairs_.emplace_back(now + rng_.exponential(f.repair_mean_s), need);
    std::push_heap(repairs_.begin(), repairs_.end(), std::greater<>());
    const long long from_hot = std::min(hot_, need);
    hot_ -= from_hot;
    need -= from_hot;
    if (from_hot > 0) pending_swap_ = std::max(pending_swap_, c_.spares.hot_swap_s);
    if (need == 0) return;
    tally_.hot_dry = true;
    const long long from_cold = std::min(cold_, need);
    cold_ -= from_cold;
    need -= from_cold;
    if (from_cold > 0) pending_swap_ = std::max(pending_swap_, c_.spares.cold_swap_s);
    if (need == 0) return;
    tally_.pool_dry = true;
    const ReplicaLayout& l = c_.layout;
    if (c_.spares.on_empty == OnEmptyPool::kShrink) {
      // Each missing node takes its replicas (those it shares with no other missing node at worst);
      // the replicas' other nodes are healthy and join the pool.
      const long long drop = need * l.replicas_per_node;
      if (lost_replicas_ + drop <= l.replicas - 1) {
        lost_replicas_ += drop;
        hot_ += need * (l.nodes_per_replica - 1);
        return;
      }
    }
    // Wait for repairs, in the order they come back; what a repair returns beyond the need joins the pool.
    while (need > 0) {
      CTWIN_ASSERT(!repairs_.empty(), "a node in repair comes back");
      const auto [back, nodes] = repairs_.front();
      std::pop_heap(repairs_.begin(), repairs_.end(), std::greater<>());
      repairs_.pop_back();
      const long long used = std::min(nodes, need);
      need -= used;
      hot_ += nodes - used;
      nodes_ready_at_ = std::max(nodes_ready_at_, back);
    }
    pending_swap_ = std::max(pending_swap_, c_.spares.hot_swap_s);
  }

  /// At a restart the job takes back dropped replicas for which the pool holds whole sets of nodes.
  void regrow() {
    const ReplicaLayout& l = c_.layout;
    while (lost_replicas_ > 0 && hot_ >= l.nodes_per_replica) {
      hot_ -= l.nodes_per_replica;
      lost_replicas_ -= std::min(lost_replicas_, l.replicas_per_node);
    }
  }

  const GoodputConfig& c_;
  const std::vector<double>& cumulative_;
  double total_rate_;
  Generator rng_;
  RunTally tally_;
  std::vector<SlowPiece> slow_;  // straggler pieces, in time order
  std::size_t slow_at_ = 0;      // the first that may still overlap a segment
  long long hot_ = 0;
  long long cold_ = 0;
  long long lost_replicas_ = 0;
  double nodes_ready_at_ = 0;
  double pending_swap_ = 0;
  std::vector<std::pair<double, long long>> repairs_;  // min-heap on return time
};

Spread spread(std::vector<double> values) {
  Spread s;
  if (values.empty()) return s;
  const double n = static_cast<double>(values.size());
  double sum = 0;
  for (double v : values) sum += v;
  s.mean = sum / n;
  double sq = 0;
  for (double v : values) sq += (v - s.mean) * (v - s.mean);
  s.stddev = values.size() > 1 ? std::sqrt(sq / (n - 1)) : 0;
  std::sort(values.begin(), values.end());
  const auto rank = [&](double p) {
    const auto i = static_cast<std::size_t>(std::max(1.0, std::ceil(p * n))) - 1;
    return values[std::min(i, values.size() - 1)];
  };
  s.p5 = rank(0.05);
  s.p50 = rank(0.5);
  s.p95 = rank(0.95);
  return s;
}

// Failure and straggler events one run may draw, and all runs of one command together.
constexpr double kMaxEventsPerRun = 1e6;
constexpr double kMaxEventsPerCommand = 1e9;

void check(const GoodputConfig& c) {
  const auto positive = [](double v) { return std::isfinite(v) && v > 0; };
  const auto non_negative = [](double v) { return std::isfinite(v) && v >= 0; };
  if (!positive(c.duration_s)) throw InputError("--days", "", "the run must last a positive time");
  if (!positive(c.interval_s)) throw InputError("--checkpoint-interval", "", "must be a positive time");
  if (!non_negative(c.blocking_s) || !non_negative(c.persist_s) || !non_negative(c.detection_s) ||
      !non_negative(c.launch_s) || !non_negative(c.load_s)) {
    throw InputError("goodput", "", "checkpoint, detection and restart times must be finite and non-negative");
  }
  if (c.interval_s < c.blocking_s) {
    throw InputError("--checkpoint-interval", "",
                     "an interval of " + std::to_string(c.interval_s) + " s is shorter than the checkpoint write (" +
                         std::to_string(c.blocking_s) + " s)");
  }
  if (c.interval_s + c.blocking_s < c.persist_s) {
    throw InputError("--checkpoint-interval", "",
                     "an interval of " + std::to_string(c.interval_s) + " s is shorter than the asynchronous checkpoint's upload (" +
                         std::to_string(c.persist_s) + " s): checkpoints would queue up");
  }
  if (c.runs < 1) throw InputError("--runs", "", "at least one run");
  const StragglerModel& st = c.stragglers;
  if (!non_negative(st.rate_per_s)) throw InputError("--straggler-rate", "", "must be a finite non-negative rate");
  if (st.rate_per_s > 0) {
    if (!positive(st.duration_s)) throw InputError("--straggler-duration", "", "must be a positive time");
    if (st.gpus < 1 || !st.effect) throw InputError("goodput", "", "stragglers need the job's GPUs and their step effect");
  }
  // The events a run draws are held and swept in memory: `--straggler-rate 1e9/h` grew past
  // 2.6 GB without a word (issue 36). Refuse, with the estimate, past what a run can hold and
  // what a command gets through in minutes.
  double failure_rate = 0;
  for (const auto& cause : c.causes) failure_rate += std::isfinite(cause.rate_per_s) ? cause.rate_per_s : 0;
  for (const auto& cause : c.slowdowns) {
    if (!non_negative(cause.rate_per_s)) throw InputError("goodput", "", "failure rate of '" + cause.name + "' is not a finite non-negative number");
    if (cause.rate_per_s > 0 && (!positive(cause.repair_mean_s) || !(cause.effect >= 1) || !std::isfinite(cause.effect))) {
      throw InputError("goodput", "", "'" + cause.name + "' slows the job: it needs a positive repair time and a finite slowdown of at least 1");
    }
    failure_rate += cause.rate_per_s;
  }
  const double per_run = (st.rate_per_s + failure_rate) * c.duration_s;
  if (per_run > kMaxEventsPerRun) {
    char text[320];
    std::snprintf(text, sizeof text,
                  "about %.3g events per run (%.3g straggler events and %.3g failures over %.3g days), more than the "
                  "%.0e a run simulates: a part that fails or throttles that often is broken, not unreliable",
                  per_run, st.rate_per_s * c.duration_s, failure_rate * c.duration_s, c.duration_s / 86400,
                  kMaxEventsPerRun);
    throw InputError(st.rate_per_s * c.duration_s > failure_rate * c.duration_s ? "--straggler-rate" : "--days", "", text);
  }
  if (per_run * c.runs > kMaxEventsPerCommand) {
    char text[240];
    std::snprintf(text, sizeof text,
                  "%d runs of about %.3g events each are %.3g events, more than the %.0e one command simulates: "
                  "lower --runs",
                  c.runs, per_run, per_run * c.runs, kMaxEventsPerCommand);
    throw InputError("--runs", "", text);
  }
  if (c.layout.replicas < 1 || c.layout.nodes_per_replica < 1 || c.layout.replicas_per_node < 1) {
    throw InputError("goodput", "", "the job needs at least one replica on at least one node");
  }
  for (const auto& cause : c.causes) {
    if (!non_negative(cause.rate_per_s)) throw InputError("goodput", "", "failure rate of '" + cause.name + "' is not a finite non-negative number");
    if (cause.nodes_taken > 0 && !positive(cause.repair_mean_s)) {
      throw InputError("goodput", "", "repair time of '" + cause.name + "' must be positive");
    }
  }
}

}  // namespace

GoodputResult simulate_goodput(const GoodputConfig& config) {
  check(config);
  std::vector<double> cumulative;
  double total = 0;
  for (const auto& cause : config.causes) {
    total += cause.rate_per_s;
    cumulative.push_back(total);
  }
  GoodputResult r;
  r.runs = config.runs;
  r.duration_s = config.duration_s;
  r.interval_s = config.interval_s;
  r.expected_interruptions = total * config.duration_s;
  r.interruptions_by_cause.assign(config.causes.size(), 0);
  std::vector<double> ettr, goodput, interruptions;
  long long hot_dry = 0, pool_dry = 0, failures = 0;
  double down = 0;
  for (int i = 0; i < config.runs; ++i) {
    const RunTally t = Run(config, cumulative, total, i).play();
    ettr.push_back(t.time.useful_s / config.duration_s);
    goodput.push_back(t.goodput_work_s / config.duration_s);
    interruptions.push_back(static_cast<double>(t.interruptions));
    for (std::size_t c = 0; c < t.by_cause.size(); ++c) r.interruptions_by_cause[c] += static_cast<double>(t.by_cause[c]);
    r.time.useful_s += t.time.useful_s;
    r.time.checkpoint_s += t.time.checkpoint_s;
    r.time.lost_work_s += t.time.lost_work_s;
    r.time.detection_s += t.time.detection_s;
    r.time.waiting_s += t.time.waiting_s;
    r.time.switchover_s += t.time.switchover_s;
    r.time.restart_s += t.time.restart_s;
    r.time.shrunk_s += t.time.shrunk_s;
    r.time.straggler_s += t.time.straggler_s;
    r.time.slowdown_s += t.time.slowdown_s;
    r.straggler_events += static_cast<double>(t.straggler_events);
    r.slowdown_events += static_cast<double>(t.slowdown_events);
    hot_dry += t.hot_dry ? 1 : 0;
    pool_dry += t.pool_dry ? 1 : 0;
    failures += t.interruptions;
    down += t.time.detection_s + t.time.waiting_s + t.time.switchover_s + t.time.restart_s;
  }
  const double n = config.runs;
  for (double& c : r.interruptions_by_cause) c /= n;
  for (double* v : {&r.time.useful_s, &r.time.checkpoint_s, &r.time.lost_work_s, &r.time.detection_s, &r.time.waiting_s,
                    &r.time.switchover_s, &r.time.restart_s, &r.time.shrunk_s, &r.time.straggler_s,
                    &r.time.slowdown_s, &r.straggler_events, &r.slowdown_events}) {
    *v /= n;
  }
  r.ettr = spread(std::move(ettr));
  r.goodput = spread(std::move(goodput));
  r.interruptions = spread(std::move(interruptions));
  r.hot_dry_probability = static_cast<double>(hot_dry) / n;
  r.pool_dry_probability = static_cast<double>(pool_dry) / n;
  r.mtbf_s = failures > 0 ? config.duration_s * n / static_cast<double>(failures) : std::numeric_limits<double>::infinity();
  r.mttr_s = failures > 0 ? down / static_cast<double>(failures) : 0;
  r.availability = 1 - down / (n * config.duration_s);
  return r;
}

double young_daly_interval_s(double blocking_s, double mtbf_s) { return std::sqrt(2 * blocking_s * mtbf_s); }

double first_order_ettr(double interval_s, double blocking_s, double mtbf_s, double recovery_s) {
  const double cycle = interval_s + blocking_s;
  return interval_s / cycle * (1 - (cycle / 2 + recovery_s) / mtbf_s);
}

IntervalSearch search_interval(GoodputConfig config, double lowest_s, double highest_s, int points, double step_s) {
  CTWIN_ASSERT(points >= 3 && lowest_s > 0 && highest_s > lowest_s, "a grid of at least three increasing intervals");
  const auto rounded = [&](double tau) { return step_s > 0 ? std::max(1.0, std::ceil(tau / step_s - 1e-9)) * step_s : tau; };
  IntervalSearch s;
  const double ratio = std::pow(highest_s / lowest_s, 1.0 / (points - 1));
  double tau = lowest_s;
  for (int i = 0; i < points; ++i, tau *= ratio) {
    config.interval_s = rounded(tau);
    if (!s.points.empty() && config.interval_s <= s.points.back().interval_s) continue;
    s.points.push_back({config.interval_s, simulate_goodput(config).ettr.mean});
  }
  std::size_t best = 0;
  for (std::size_t i = 1; i < s.points.size(); ++i) {
    if (s.points[i].ettr > s.points[best].ettr) best = i;
  }
  double chosen = s.points[best].interval_s;
  if (best > 0 && best + 1 < s.points.size()) {
    // Vertex of the parabola through three points in log τ: smooths the Monte Carlo noise of a flat top.
    const double x0 = std::log(s.points[best - 1].interval_s), x1 = std::log(s.points[best].interval_s),
                 x2 = std::log(s.points[best + 1].interval_s);
    const double y0 = s.points[best - 1].ettr, y1 = s.points[best].ettr, y2 = s.points[best + 1].ettr;
    const double denom = (x0 - x1) * (x0 - x2) * (x1 - x2);
    const double a = (x2 * (y1 - y0) + x1 * (y0 - y2) + x0 * (y2 - y1)) / denom;
    const double b = (x2 * x2 * (y0 - y1) + x1 * x1 * (y2 - y0) + x0 * x0 * (y1 - y2)) / denom;
    if (a < 0) chosen = std::exp(std::clamp(-b / (2 * a), x0, x2));
  }
  config.interval_s = rounded(chosen);
  s.best_interval_s = config.interval_s;
  s.best_ettr = simulate_goodput(config).ettr.mean;
  return s;
}

}  // namespace ctwin::analysis
