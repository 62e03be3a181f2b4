#include "ctwin/calibration/nccl_fit.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>

#include <Eigen/Dense>

#include "ctwin/calibration/nccl_log_check.hpp"
#include "ctwin/core/error.hpp"

namespace ctwin::calibration {
namespace {

enum Parameter {
  kNvlink,
  kPcie,
  kNic,
  kSwitchLink,
  kLatencyLL,
  kLatencyLL128,
  kLatencySimple,
  kShareLL,
  kShareLL128,
  kNvls,
  kParameterCount
};
constexpr const char* kParameterNames[kParameterCount] = {
    "NVLink efficiency",   "PCIe efficiency",       "NIC port efficiency",    "switch link efficiency",
    "LL latency scale",    "LL128 latency scale",   "Simple latency scale",   "LL share scale",
    "LL128 share scale",   "NVLS efficiency scale"};

// Scales live in log space: positive by construction, and a step means the same relative
// change at any value. Link efficiencies cannot exceed 1.
constexpr double kLogBound = 3.0;  // e^±3: a factor of 20 either way
constexpr double kStep = 0.01;     // finite-difference step: 1%
constexpr double kPull = 1e-3;     // weight of the pull towards the defaults, per parameter
constexpr double kUnseen = 1e-3;   // a column of the Jacobian below this norm is not identified

NcclCalibration calibration_at(const NcclCalibration& base, const Eigen::VectorXd& x) {
  NcclCalibration c = base;
  const auto scaled = [&](double value, int k) { return value * std::exp(x[k]); };
  c.nvlink_efficiency = std::min(1.0, scaled(base.nvlink_efficiency, kNvlink));
  c.pcie_efficiency = std::min(1.0, scaled(base.pcie_efficiency, kPcie));
  c.nic_efficiency = std::min(1.0, scaled(base.nic_efficiency, kNic));
  c.switch_link_efficiency = std::min(1.0, scaled(base.switch_link_efficiency, kSwitchLink));
  for (int p = 0; p < 3; ++p) c.tuning.latency_scale[p] = scaled(base.tuning.latency_scale[p], kLatencyLL + p);
  c.tuning.ll_share_scale = scaled(base.tuning.ll_share_scale, kShareLL);
  c.tuning.ll128_share_scale = scaled(base.tuning.ll128_share_scale, kShareLL128);
  c.tuning.nvls_scale = scaled(base.tuning.nvls_scale, kNvls);
  return c;
}

double value_of(const NcclCalibration& c, int k) {
  switch (k) {
    case kNvlink: return c.nvlink_efficiency;
    case kPcie: return c.pcie_efficiency;
    case kNic: return c.nic_efficiency;
    case kSwitchLink: return c.switch_link_efficiency;
    case kLatencyLL:
    case kLatencyLL128:
    case kLatencySimple: return c.tuning.latency_scale[static_cast<std::size_t>(k - kLatencyLL)];
    case kShareLL: return c.tuning.ll_share_scale;
    case kShareLL128: return c.tuning.ll128_share_scale;
    default: return c.tuning.nvls_scale;
  }
}

// log(predicted / measured) for every row of every case, in order.
Eigen::VectorXd log_residuals(const std::vector<LogComparison>& comparisons) {
  std::vector<double> values;
  for (const auto& comparison : comparisons) {
    for (const auto& row : comparison.rows) values.push_back(-std::log1p(row.error));
  }
  return Eigen::Map<Eigen::VectorXd>(values.data(), static_cast<Eigen::Index>(values.size()));
}

std::vector<double> errors_of(const LogComparison& comparison) {
  std::vector<double> errors;
  for (const auto& row : comparison.rows) errors.push_back(row.error);
  return errors;
}

void summarize_cases(const std::vector<NcclFitCase>& cases, const std::vector<LogComparison>& before,
                     const std::vector<LogComparison>& after, std::vector<NcclCaseError>& per_case,
                     ErrorStats& pooled_before, ErrorStats& pooled_after) {
  std::vector<double> all_before;
  std::vector<double> all_after;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const auto b = errors_of(before[i]);
    const auto a = errors_of(after[i]);
    all_before.insert(all_before.end(), b.begin(), b.end());
    all_after.insert(all_after.end(), a.begin(), a.end());
    per_case.push_back({cases[i].name, error_stats(b), error_stats(a)});
  }
  pooled_before = error_stats(all_before);
  pooled_after = error_stats(all_after);
}

}  // namespace

NcclCalibration NcclCalibration::defaults_of(const fabric::ClusterSpec& spec) {
  NcclCalibration c;
  c.nvlink_efficiency = spec.server.nvlink ? spec.server.nvlink->link.efficiency : 0;
  c.pcie_efficiency = spec.server.pcie.efficiency;
  c.nic_efficiency = spec.server.nics.link.efficiency;
  c.switch_link_efficiency = spec.fabric.link.efficiency;
  return c;
}

fabric::ClusterSpec NcclCalibration::apply(fabric::ClusterSpec spec) const {
  if (spec.server.nvlink && nvlink_efficiency > 0) spec.server.nvlink->link.efficiency = nvlink_efficiency;
  spec.server.pcie.efficiency = pcie_efficiency;
  spec.server.nics.link.efficiency = nic_efficiency;
  spec.fabric.link.efficiency = switch_link_efficiency;
  return spec;
}

std::vector<LogComparison> compare_cases(const fabric::ClusterSpec& spec, const NcclCalibration& calibration,
                                         const std::vector<NcclFitCase>& cases, network::ModelKind network) {
  const fabric::ClusterSpec applied = calibration.apply(spec);
  std::map<int, std::unique_ptr<fabric::Fabric>> fabrics;
  std::vector<LogComparison> comparisons;
  for (const auto& c : cases) {
    auto& built = fabrics[c.gpus];
    if (!built) built = std::make_unique<fabric::Fabric>(applied, c.gpus);
    collectives::CollectiveQuery query;
    query.algorithm = c.algorithm;
    query.protocol = c.protocol;
    query.network = network;
    query.tuning = calibration.tuning;
    comparisons.push_back(compare_with_log(c.log, c.op, *built, query));
  }
  return comparisons;
}

NcclFitReport fit_nccl(const fabric::ClusterSpec& spec, const std::vector<NcclFitCase>& fit,
                       const std::vector<NcclFitCase>& holdout, network::ModelKind network) {
  if (fit.empty()) throw InputError("--nccl", "", "no log to fit");
  for (const auto* cases : {&fit, &holdout}) {
    for (const NcclFitCase& c : *cases) require_fit_ready(c.log, c.op, c.gpus);
  }
  const NcclCalibration base = NcclCalibration::defaults_of(spec);
  NcclFitReport report;

  // What the logs exercise decides what is free (nccl_fit.hpp): each free scale moves its
  // members together, in log space.
  bool intra = false;
  bool inter = false;
  for (const NcclFitCase& c : fit) (c.gpus <= spec.server.gpus ? intra : inter) = true;
  const bool has_nvlink = base.nvlink_efficiency > 0;
  const int intra_link = has_nvlink ? kNvlink : kPcie;
  std::vector<int> network_links = {kNic, kSwitchLink};
  if (has_nvlink) network_links.insert(network_links.begin(), kPcie);
  std::vector<std::vector<int>> free;
  std::vector<std::string> reason(kParameterCount);
  if (intra) {
    free.push_back({intra_link});
    for (int k = kLatencyLL; k <= kNvls; ++k) free.push_back({k});
  } else {
    reason[static_cast<std::size_t>(intra_link)] = "not identified: it sets the intra-node path and no log runs within one node";
    for (int k = kLatencyLL; k <= kNvls; ++k) {
      reason[static_cast<std::size_t>(k)] = "not identified: it also sets intra-node paths and no log runs within one node";
    }
  }
  if (inter) {
    free.push_back(network_links);
  } else {
    for (const int k : network_links) reason[static_cast<std::size_t>(k)] = "not identified: no log crosses the network";
  }
  const auto free_count = static_cast<Eigen::Index>(free.size());
  const auto expand = [&](const Eigen::VectorXd& z) {
    Eigen::VectorXd x = Eigen::VectorXd::Zero(kParameterCount);
    for (Eigen::Index f = 0; f < free_count; ++f) {
      for (const int k : free[static_cast<std::size_t>(f)]) x[k] = z[f];
    }
    return x;
  };

  int evaluations = 0;
  const auto residuals_at = [&](const Eigen::VectorXd& z) {
    ++evaluations;
    return log_residuals(compare_cases(spec, calibration_at(base, expand(z)), fit, network));
  };
  const auto cost_of = [&](const Eigen::VectorXd& r, const Eigen::VectorXd& z) {
    return r.squaredNorm() + kPull * z.squaredNorm();
  };

  Eigen::VectorXd z = Eigen::VectorXd::Zero(free_count);
  Eigen::VectorXd r = residuals_at(z);
  double cost = cost_of(r, z);
  // The inter-node links below the path's bottleneck (those of a two-node NVLS-tree) show no
  // derivative until they become the bottleneck: their scale starts from the best of a coarse
  // grid, so the descent starts on the side of the kink the logs point to. The intra-node link
  // is the bottleneck of its own logs and needs none.
  for (Eigen::Index f = 0; f < free_count; ++f) {
    if (free[static_cast<std::size_t>(f)].size() < 2) continue;
    const double start = z[f];
    double best_at = start;
    for (const double share : {1.2, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3}) {
      Eigen::VectorXd probe = z;
      probe[f] = start + std::log(share);
      const Eigen::VectorXd probe_r = residuals_at(probe);
      const double probe_cost = cost_of(probe_r, probe);
      if (probe_cost < cost) {
        cost = probe_cost;
        r = probe_r;
        best_at = probe[f];
      }
    }
    z[f] = best_at;
  }
  std::vector<bool> identified(free.size(), false);
  double damping = 1e-2;
  constexpr int kMaxIterations = 25;
  for (int iteration = 0; iteration < kMaxIterations && free_count > 0; ++iteration) {
    report.iterations = iteration + 1;
    Eigen::MatrixXd jacobian = Eigen::MatrixXd::Zero(r.size(), free_count);
    const NcclCalibration now = calibration_at(base, expand(z));
    for (Eigen::Index f = 0; f < free_count; ++f) {
      const auto& members = free[static_cast<std::size_t>(f)];
      // Efficiencies at their ceiling of 1 can only go down.
      const bool capped = std::all_of(members.begin(), members.end(),
                                      [&](int k) { return k <= kSwitchLink && value_of(now, k) >= 1.0; });
      const double step = capped ? -kStep : kStep;
      Eigen::VectorXd probe = z;
      probe[f] += step;
      jacobian.col(f) = (residuals_at(probe) - r) / step;
      // Inter-node links faster than the path's bottleneck move nothing when they speed up, yet
      // become the bottleneck when they slow down: a path's figures are a minimum over its
      // links, so the other side of the kink is probed before calling the scale unseen.
      if (jacobian.col(f).norm() <= kUnseen && !capped && members.size() > 1) {
        probe[f] = z[f] - kStep;
        jacobian.col(f) = (residuals_at(probe) - r) / -kStep;
      }
      identified[static_cast<std::size_t>(f)] = identified[static_cast<std::size_t>(f)] || jacobian.col(f).norm() > kUnseen;
    }
    const Eigen::MatrixXd normal = jacobian.transpose() * jacobian + kPull * Eigen::MatrixXd::Identity(free_count, free_count);
    const Eigen::VectorXd gradient = jacobian.transpose() * r + kPull * z;
    bool improved = false;
    for (int attempt = 0; attempt < 8 && !improved; ++attempt) {
      Eigen::MatrixXd damped = normal;
      damped.diagonal() += damping * normal.diagonal();
      Eigen::VectorXd candidate = z - damped.ldlt().solve(gradient);
      candidate = candidate.cwiseMax(-kLogBound).cwiseMin(kLogBound);
      const Eigen::VectorXd candidate_r = residuals_at(candidate);
      const double candidate_cost = cost_of(candidate_r, candidate);
      if (candidate_cost < cost) {
        const double gain = (cost - candidate_cost) / std::max(cost, 1e-300);
        const double moved = (candidate - z).cwiseAbs().maxCoeff();
        z = candidate;
        r = candidate_r;
        cost = candidate_cost;
        damping = std::max(1e-6, damping / 3);
        improved = true;
        if (gain < 1e-6 || moved < 1e-4) iteration = kMaxIterations;
      } else {
        damping *= 4;
      }
    }
    if (!improved) break;
  }

  // A parameter pushed to its bound, a factor of 20 from its default, is no measurement of
  // the cluster: the logs disagree with the topology (another build, another rank count) or
  // with themselves. Refuse rather than write a profile that predicts nonsense.
  for (Eigen::Index f = 0; f < free_count; ++f) {
    const auto& members = free[static_cast<std::size_t>(f)];
    // Efficiencies are capped at 1 whatever their scale, so only their lower bound counts.
    const bool links = members.front() <= kSwitchLink;
    const bool at_bound = links ? z[f] <= -kLogBound * 0.999 : std::fabs(z[f]) >= kLogBound * 0.999;
    if (identified[static_cast<std::size_t>(f)] && at_bound) {
      std::string names;
      for (const int k : members) names += (names.empty() ? "" : " + ") + std::string(kParameterNames[k]);
      throw InputError("--nccl", "", "implausible fit: " + names + " ran to " + (z[f] > 0 ? "20 times" : "1/20 of") +
                                         " its default; the logs do not match this topology");
    }
  }
  report.calibration = calibration_at(base, expand(z));
  for (Eigen::Index f = 0; f < free_count; ++f) {
    const auto& members = free[static_cast<std::size_t>(f)];
    const bool seen = identified[static_cast<std::size_t>(f)];
    for (const int k : members) {
      std::string& why = reason[static_cast<std::size_t>(k)];
      if (!seen) {
        why = "not identified: the logs do not constrain it";
      } else if (members.size() > 1) {
        std::string others;
        for (const int other : members) {
          if (other != k) others += (others.empty() ? "" : " and ") + std::string(kParameterNames[other]);
        }
        why = "not identified alone: in series with " + others + " on every path of the logs; scaled with them as one "
              "inter-node factor";
      }
    }
    if (members.front() <= kSwitchLink) {
      NcclPathFactor factor;
      factor.path = members.front() == intra_link && members.size() == 1 ? "intra-node" : "inter-node";
      for (const int k : members) factor.links.push_back(kParameterNames[k]);
      factor.scale = std::exp(z[f]);
      factor.identified = seen;
      report.path_factors.push_back(std::move(factor));
    }
  }
  for (int k = 0; k < kParameterCount; ++k) {
    if (k == kNvlink && !has_nvlink) continue;
    const std::string& why = reason[static_cast<std::size_t>(k)];
    report.parameters.push_back({kParameterNames[k], value_of(base, k), value_of(report.calibration, k), why.empty(), why});
  }
  summarize_cases(fit, compare_cases(spec, base, fit, network), compare_cases(spec, report.calibration, fit, network),
                  report.fitted, report.fit_before, report.fit_after);
  if (!holdout.empty()) {
    summarize_cases(holdout, compare_cases(spec, base, holdout, network),
                    compare_cases(spec, report.calibration, holdout, network), report.holdout, report.holdout_before,
                    report.holdout_after);
  }
  report.evaluations = evaluations;
  return report;
}

}  // namespace ctwin::calibration
